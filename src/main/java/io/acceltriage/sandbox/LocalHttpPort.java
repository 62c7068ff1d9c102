package io.acceltriage.sandbox;

import io.quarkus.vertx.http.HttpServer;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * The port this service actually listens on. Quarkus registers the bound port (also a random one, port 0,
 * and the test port under @QuarkusTest) with its HttpServer runtime info; the start event is the
 * fallback for when that is not available.
 */
@ApplicationScoped
class LocalHttpPort {

    private final Instance<HttpServer> server;
    private volatile int observed = -1;

    @Inject
    LocalHttpPort(Instance<HttpServer> server) {
        this.server = server;
    }

    void started(@ObservesAsync HttpServerStart start) {
        if (start.options().getPort() > 0) {
            observed = start.options().getPort();
        }
    }

    int port() {
        if (server.isResolvable()) {
            int port = server.get().getPort();
            if (port > 0) {
                return port;
            }
        }
        if (observed > 0) {
            return observed;
        }
        throw new IllegalStateException("the HTTP server has not started yet");
    }
}
