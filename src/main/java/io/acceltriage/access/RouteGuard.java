package io.acceltriage.access;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;

/**
 * The same tokens for the routes that are not JAX-RS resources (the MCP server's /mcp endpoints), which
 * {@link AccessFilter} never sees: a bearer token ACCELTRIAGE_ACCESS_TOKENS issued, at least a viewer
 * (everything served there is read-only). Refusals are recorded like the filter's.
 */
@ApplicationScoped
class RouteGuard {

    /** Routes guarded here; each is read-only, so a viewer may use it. */
    static final String MCP = "/mcp";

    private final AccessTokens tokens;
    private final Refusals refusals;

    RouteGuard(AccessTokens tokens, Refusals refusals) {
        this.tokens = tokens;
        this.refusals = refusals;
    }

    void install(@Observes Router router) {
        // Before the MCP server's own routes, which are registered with the default order.
        router.route(MCP + "*").order(-1000).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        String authorization = ctx.request().getHeader("Authorization");
        Optional<Principal> who = authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                ? tokens.authenticate(authorization.substring(7).trim()) : Optional.empty();
        if (who.isPresent() && who.get().role().includes(Role.VIEWER)) {
            ctx.next();
            return;
        }
        String reason = authorization == null ? "no credentials: send Authorization: Bearer <token>"
                : "the bearer token is not one ACCELTRIAGE_ACCESS_TOKENS issued";
        String remote = ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().hostAddress();
        // Refusals write to the store: off the event loop.
        ctx.vertx().executeBlocking(() -> {
            refusals.record(Refusals.ANONYMOUS, ctx.request().method().name(), ctx.normalizedPath(), reason, remote);
            return null;
        }, false).onComplete(done -> ctx.response().setStatusCode(401).putHeader("Content-Type", "application/json")
                .putHeader("WWW-Authenticate", "Bearer realm=\"acceltriage\"").end(new JsonObject().put("error", reason).encode()));
    }
}
