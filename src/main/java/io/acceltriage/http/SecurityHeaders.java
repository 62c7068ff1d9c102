package io.acceltriage.http;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * Headers every answer carries, so a browser treats our pages as what they are: no content sniffing
 * anywhere; on pages no scripts at all (they need none), no framing (clickjacking the approve
 * buttons), forms posting only here, and no Referer carrying an approval link's token to other sites.
 */
class SecurityHeaders {

    /** The pages use inline styles and nothing else: no script, image, font or connection anywhere. */
    static final String PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none';"
            + " base-uri 'none'";

    @ServerResponseFilter
    public void add(ContainerRequestContext request, ContainerResponseContext response) {
        var headers = response.getHeaders();
        headers.putSingle("X-Content-Type-Options", "nosniff");
        MediaType type = response.getMediaType();
        boolean page = type != null && type.isCompatible(MediaType.TEXT_HTML_TYPE);
        if (page || response.getStatus() / 100 == 3) {
            headers.putSingle("Content-Security-Policy", PAGE_POLICY);
            headers.putSingle("X-Frame-Options", "DENY");
            headers.putSingle("Referrer-Policy", "no-referrer");
        }
    }
}
