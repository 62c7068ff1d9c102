package io.acceltriage.cluster;

/** The API server could not answer a read the caller needs: the caller decides nothing on a guess. */
public final class ClusterUnreadable extends RuntimeException {
    public ClusterUnreadable(String message, Throwable cause) {
        super(message, cause);
    }
}
