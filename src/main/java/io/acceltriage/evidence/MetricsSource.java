package io.acceltriage.evidence;

import java.util.List;

/** Where device metrics come from: a direct scrape of the node's exporter, Prometheus, or a recording. */
public interface MetricsSource {

    NodeSamples read(String node) throws EvidenceUnavailable;

    /**
     * The samples now, for a reader outside triage (the GPU reset checking its XID): a source that
     * remembers its previous reading for change detection must not count this one as that reading.
     */
    default List<Sample> now(String node) throws EvidenceUnavailable {
        return read(node).now();
    }

    /** A source could not answer; the message says which and why, for the incident's notes. */
    final class EvidenceUnavailable extends Exception {
        public EvidenceUnavailable(String message) {
            super(message);
        }
    }
}
