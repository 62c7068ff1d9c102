/**
 * Below the flow, beside store: the fault history of every GPU across incidents (the gpu_faults
 * table), written by triage from platform evidence, read back as evidence, by the GPU history API and
 * by the fleet page's repeat offenders.
 */
package io.acceltriage.history;
