package io.acceltriage.sandbox;

/** The node's metrics exporter does not answer (it crash-loops, or the node is unreachable). */
public final class ExporterUnavailableException extends RuntimeException {

    public ExporterUnavailableException(String message) {
        super(message);
    }
}
