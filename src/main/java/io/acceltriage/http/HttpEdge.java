package io.acceltriage.http;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A body over quarkus.http.limits.max-body-size gets a reason like every other refusal: Quarkus answers
 * it with a bare 413 before JAX-RS runs. (A request line that is no URI, or too long, Vert.x refuses
 * with a bare 400 or 414 even earlier; nothing of ours runs for it.)
 */
@ApplicationScoped
class HttpEdge {

    /** Quarkus' own size check runs at order -2 (RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT); this answers first. */
    static final int ORDER = -3;

    void install(@Observes Router router, @ConfigProperty(name = "quarkus.http.limits.max-body-size") Optional<MemorySize> max) {
        max.ifPresent(m -> {
            long limit = m.asLongValue();
            String body = "{\"error\":\"the body is larger than the service accepts (" + limit + " bytes, quarkus.http.limits.max-body-size)"
                    + ": Alertmanager batches fit well within it; lower max_alerts in the webhook_config if yours do not\"}";
            router.route().order(ORDER).handler(ctx -> {
                if (declaredLength(ctx.request().getHeader("Content-Length")) > limit) {
                    ctx.response().setStatusCode(413).putHeader("Content-Type", "application/json").putHeader("Connection", "close")
                            .end(body);
                    return;
                }
                ctx.next();
            });
        });
    }

    static long declaredLength(String header) {
        try {
            return header == null ? -1 : Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return -1; // Vert.x refuses a malformed Content-Length itself
        }
    }
}
