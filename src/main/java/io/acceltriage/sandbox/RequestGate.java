package io.acceltriage.sandbox;

/**
 * A hold on the simulated API server's requests, for tests that must stop the world at a chosen moment
 * (kill a client between asking for a change and hearing the answer). Called on the server's request
 * thread, so a gate that blocks holds that request, and others on the same connection loop, until it
 * returns.
 */
public interface RequestGate {

    /** Before the server handles a request: false answers 503 without applying it, as if it never arrived. */
    default boolean admit(String method, String path) {
        return true;
    }

    /** After the server applied a request, before its answer is sent. */
    default void applied(String method, String path, int code) {
    }

    /**
     * How long the answer to a request waits after the server applied it (zero: none). The server's other
     * requests go on meanwhile: a slow API server for one call, not a stopped one.
     */
    default java.time.Duration delay(String method, String path) {
        return java.time.Duration.ZERO;
    }

    RequestGate OPEN = new RequestGate() {
    };
}
