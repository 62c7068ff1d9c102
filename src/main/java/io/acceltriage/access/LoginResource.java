package io.acceltriage.access;

import io.acceltriage.http.Redirects;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.Optional;

/**
 * Signing in to the pages: the person pastes their token once and gets a signed session cookie
 * (HttpOnly, so scripts cannot read it; SameSite=Strict, so other sites cannot ride it).
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
class LoginResource {

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance login(String next, String error);
    }

    private final AccessTokens tokens;
    private final Sessions sessions;
    private final Refusals refusals;

    LoginResource(AccessTokens tokens, Sessions sessions, Refusals refusals) {
        this.tokens = tokens;
        this.sessions = sessions;
        this.refusals = refusals;
    }

    @GET
    @Path("login")
    public TemplateInstance form(@QueryParam("next") String next) {
        return Templates.login(safeNext(next), null);
    }

    @POST
    @Path("login")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response login(@FormParam("token") String token, @FormParam("next") String next, @Context HttpHeaders headers,
            @Context HttpServerRequest http) {
        String given = token == null ? null : token.strip();
        Optional<Principal> who = tokens.authenticate(given);
        if (who.isEmpty()) {
            refusals.record(Refusals.ANONYMOUS, "POST", "/login", "sign-in with a token that was not issued",
                    http.remoteAddress() == null ? "" : http.remoteAddress().hostAddress());
            return Response.status(401).entity(Templates.login(safeNext(next),
                    "That token was not recognised. Paste the whole token your operator issued (or the one the serve banner printed)."))
                    .build();
        }
        boolean secure = "https".equalsIgnoreCase(http.scheme())
                || "https".equalsIgnoreCase(headers.getHeaderString("X-Forwarded-Proto"));
        return Redirects.seeOther(safeNext(next))
                .header("Set-Cookie", cookie(sessions.issue(who.get(), given), sessions.ttl().toSeconds(), secure))
                .header("Cache-Control", "no-store").build();
    }

    @POST
    @Path("logout")
    public Response logout(@CookieParam(Sessions.COOKIE) String session) {
        sessions.end(session);
        return Redirects.seeOther("/login").header("Set-Cookie", cookie("", 0, false)).build();
    }

    static String cookie(String value, long maxAge, boolean secure) {
        return Sessions.COOKIE + "=" + value + "; Path=/; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    /**
     * Only a path on this site: a login link must not be able to send people elsewhere. Anything that
     * is not a plain URI path (a tab, a CR or another control character, a space, a backslash) goes
     * home instead: it would split the Location header, or browsers would read it as another host.
     */
    static String safeNext(String next) {
        if (next == null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || next.startsWith("/login")
                || next.length() > 2000 || next.chars().anyMatch(c -> c <= ' ' || c == '\\' || c >= 0x7f)) {
            return "/";
        }
        try {
            URI u = new URI(next);
            return u.getScheme() == null && u.getRawAuthority() == null ? next : "/";
        } catch (java.net.URISyntaxException e) {
            return "/";
        }
    }
}
