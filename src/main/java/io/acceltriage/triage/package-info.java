/**
 * Stage 3, triage: the conductor. The processing loop takes filed incidents, the responder runs evidence → diagnosis → planner (and the model) → policy, the executor acts, notify tells people; a fleet incident is triaged once.
 */
package io.acceltriage.triage;
