/**
 * Stage 4, evidence: collectors for the cluster (device health, pods, events, node agents), device metrics (exporter scrape or Prometheus) and logs (signatures), the evidence records they produce, and the one redactor for text that leaves the trust boundary.
 */
package io.acceltriage.evidence;
