package io.acceltriage.http;

import jakarta.ws.rs.core.Response;

/**
 * Redirects within this site. JAX-RS makes a relative {@code seeOther} URI absolute with the request's
 * Host header, which the client chooses: a forged Host would send the browser elsewhere after a login
 * or a decision. A relative Location keeps the browser on the host it already talks to.
 */
public final class Redirects {

    private Redirects() {}

    /** 303 to {@code pathAndQuery}, which must be a path of this site (starting with one '/'). */
    public static Response.ResponseBuilder seeOther(String pathAndQuery) {
        if (pathAndQuery == null || !pathAndQuery.startsWith("/") || pathAndQuery.startsWith("//")) {
            throw new IllegalArgumentException("not a path of this site: " + pathAndQuery);
        }
        return Response.status(Response.Status.SEE_OTHER).header("Location", pathAndQuery);
    }
}
