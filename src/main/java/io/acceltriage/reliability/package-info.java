/**
 * Reliability: what each failure cost and how fast it was handled — time to detect, decide, mitigate,
 * verify and resolve, GPUs fenced and GPU-hours lost — per incident and per failure family, from what
 * the incidents stored (alerts, audit trail, actions).
 */
package io.acceltriage.reliability;
