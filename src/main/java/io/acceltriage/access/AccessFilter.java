package io.acceltriage.access;

import io.acceltriage.http.Redirects;
import io.acceltriage.http.ErrorBody;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The one gate in front of every JAX-RS endpoint: a bearer token or a login session, and the role
 * the route needs ({@link AccessRules}). Refusals are audited. The API answers 401/403 with a JSON
 * reason; a page sends the browser to the login form.
 */
class AccessFilter {

    private final AccessTokens tokens;
    private final Sessions sessions;
    private final CurrentUser current;
    private final Refusals refusals;

    AccessFilter(AccessTokens tokens, Sessions sessions, CurrentUser current, Refusals refusals) {
        this.tokens = tokens;
        this.sessions = sessions;
        this.current = current;
        this.refusals = refusals;
    }

    // Pre-matching: credentials are checked before routing, so no route (not even a 404 or a 415) answers first.
    @ServerRequestFilter(preMatching = true, priority = Priorities.AUTHENTICATION)
    public Optional<Response> check(ContainerRequestContext ctx, HttpServerRequest http) {
        String method = ctx.getMethod();
        String path = normalise(ctx.getUriInfo().getPath());
        if (AccessRules.exempt(method, path).isPresent()) {
            knowBySession(ctx);
            return Optional.empty();
        }
        String remote = http.remoteAddress() == null ? "" : http.remoteAddress().hostAddress();
        String authorization = ctx.getHeaderString("Authorization");
        Cookie cookie = ctx.getCookies().get(Sessions.COOKIE);
        Optional<Principal> who;
        boolean bySession = false;
        if (authorization != null) {
            who = authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                    ? tokens.authenticate(authorization.substring(7).trim()) : Optional.empty();
            if (who.isEmpty()) {
                return refuse(ctx, path, Refusals.ANONYMOUS, 401, "the bearer token is not one ACCELTRIAGE_ACCESS_TOKENS issued", remote);
            }
        } else if (cookie != null) {
            who = sessions.verify(cookie.getValue());
            bySession = true;
            if (who.isEmpty()) {
                return refuse(ctx, path, Refusals.ANONYMOUS, 401, "the session expired or its token was withdrawn; sign in again", remote);
            }
        } else {
            return refuse(ctx, path, Refusals.ANONYMOUS, 401, "no credentials: send Authorization: Bearer <token> or sign in at /login", remote);
        }
        Principal p = who.get();
        Role needed = AccessRules.required(method, path);
        if (!p.role().includes(needed)) {
            return refuse(ctx, path, p.name(), 403, p.name() + " is " + article(p.role()) + "; " + method + " " + path + " needs "
                    + needed.wireName() + (needed == Role.ADMIN ? "" : " or admin"), remote);
        }
        if (bySession && needed != Role.VIEWER && !sameOrigin(ctx)) {
            return refuse(ctx, path, p.name(), 403, "a form from another site tried to act with this session", remote);
        }
        current.set(p);
        return Optional.empty();
    }

    /**
     * An exempt route is never refused here, but one that acts for a person (an approval link) must
     * know who that person is: a valid session cookie names them. A cross-site form cannot lend its
     * victim's session to it. A bearer header is left alone: on exempt routes it belongs to another
     * scheme (Alertmanager's token).
     */
    private void knowBySession(ContainerRequestContext ctx) {
        Cookie cookie = ctx.getCookies().get(Sessions.COOKIE);
        if (cookie == null || (!"GET".equals(ctx.getMethod()) && !sameOrigin(ctx))) {
            return;
        }
        sessions.verify(cookie.getValue()).ifPresent(current::set);
    }

    private Optional<Response> refuse(ContainerRequestContext ctx, String path, String actor, int status, String reason,
            String remote) {
        refusals.record(actor, ctx.getMethod(), path, reason, remote);
        if (path.startsWith("/api/")) {
            Response.ResponseBuilder r = Response.status(status).type(MediaType.APPLICATION_JSON).entity(new ErrorBody(reason));
            if (status == 401) {
                r.header("WWW-Authenticate", "Bearer realm=\"acceltriage\"");
            }
            return Optional.of(r.build());
        }
        if (status == 401) {
            String next = ctx.getUriInfo().getRequestUri().getRawPath()
                    + (ctx.getUriInfo().getRequestUri().getRawQuery() == null ? "" : "?" + ctx.getUriInfo().getRequestUri().getRawQuery());
            return Optional.of(Redirects.seeOther(("/login?next=" + URLEncoder.encode(
                    "GET".equals(ctx.getMethod()) ? next : "/", StandardCharsets.UTF_8))).header("Cache-Control", "no-store").build());
        }
        return Optional.of(Response.status(status).type(MediaType.TEXT_PLAIN_TYPE.withCharset("UTF-8"))
                .entity("Refused: " + reason + ".\n").build());
    }

    /** Browsers send Origin on form posts; one naming another site is a cross-site request riding the cookie. */
    private static boolean sameOrigin(ContainerRequestContext ctx) {
        String origin = ctx.getHeaderString("Origin");
        if (origin == null) {
            return true;
        }
        String host = ctx.getHeaderString("Host");
        try {
            URI o = URI.create(origin);
            String authority = o.getPort() == -1 ? o.getHost() : o.getHost() + ":" + o.getPort();
            return host != null && host.equalsIgnoreCase(authority);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String article(Role r) {
        return (r == Role.ADMIN ? "an " : "a ") + r.wireName();
    }

    static String normalise(String path) {
        String p = path == null || path.isEmpty() ? "/" : path;
        return p.startsWith("/") ? p : "/" + p;
    }
}
