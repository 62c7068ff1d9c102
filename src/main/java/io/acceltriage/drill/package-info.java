/**
 * Fault drills: a named fault (knowledge/drills/) injected into the sandbox, the incident it opens
 * followed through its stages and timed against the policy's recovery objectives, the result audited
 * and, when it failed, told to people; run from the command line, the API or the policy's schedule.
 */
package io.acceltriage.drill;
