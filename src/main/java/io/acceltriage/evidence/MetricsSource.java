package io.acceltriage.evidence;

/** Where device metrics come from: a direct scrape of the node's exporter, Prometheus, or a recording. */
public interface MetricsSource {

    NodeSamples read(String node) throws EvidenceUnavailable;

    /** A source could not answer; the message says which and why, for the incident's notes. */
    final class EvidenceUnavailable extends Exception {
        public EvidenceUnavailable(String message) {
            super(message);
        }
    }
}
