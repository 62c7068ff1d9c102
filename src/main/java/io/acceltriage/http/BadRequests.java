package io.acceltriage.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * What the framework refuses before an endpoint runs gets a reason too: a body that is not the JSON
 * the endpoint reads, a form that is not valid URL encoding, a wrong method or media type. Without
 * these the answer is a bare 400, 405 or 415, or worse a 500 for a client's mistake.
 */
public class BadRequests {

    private static final Logger LOG = Logger.getLogger(BadRequests.class);

    @ServerExceptionMapper
    Response json(JsonProcessingException e) {
        return bad(400, reason(e));
    }

    /** Quarkus maps this one itself, to a 400 whose body it leaves out in production. */
    @ServerExceptionMapper
    Response mismatched(MismatchedInputException e) {
        return bad(400, reason(e));
    }

    /** RESTEasy decoding a form or query parameter whose %-escapes are not UTF-8; anything else is a bug (500). */
    @ServerExceptionMapper
    Response undecodable(IllegalArgumentException e) {
        StackTraceElement[] at = e.getStackTrace();
        if (at.length > 0 && at[0].getClassName().startsWith("org.jboss.resteasy.reactive.common.util.URLUtils")) {
            return bad(400, "the form or query is not valid URL encoding of UTF-8 text: escape each byte as %XX");
        }
        LOG.error("unexpected error answering a request", e);
        return bad(500, "internal error; the service log has the details");
    }

    /**
     * The framework's own 4xx (no such route, wrong method or media type, a body Jackson could not
     * read…), which come without a body.
     */
    @ServerExceptionMapper
    Response framework(WebApplicationException e) {
        Response r = e.getResponse();
        int status = r.getStatus();
        if (r.hasEntity() || status < 400 || status >= 500) {
            return r;
        }
        String reason = e.getCause() instanceof JsonProcessingException j ? reason(j) : switch (status) {
            case 404 -> "no such resource: check the path";
            case 405 -> "method not allowed here" + (r.getAllowedMethods().isEmpty() ? "" : "; allowed: " + String.join(", ", r.getAllowedMethods()));
            case 406 -> "cannot answer in the media type asked for in Accept";
            case 415 -> "unsupported Content-Type: send the body as this endpoint reads it (JSON for the API, a form for the pages)";
            default -> r.getStatusInfo().getReasonPhrase();
        };
        Response.ResponseBuilder out = Response.status(status).type(MediaType.APPLICATION_JSON).entity(new ErrorBody(reason));
        r.getHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length")) {
                values.forEach(v -> out.header(name, v));
            }
        });
        return out.build();
    }

    static String reason(JsonProcessingException e) {
        String where = e instanceof MismatchedInputException m && !m.getPath().isEmpty() ? " at " + path(m) : "";
        // Jackson names the Java type it wanted; the reader of the answer knows the endpoint, not our classes.
        String why = firstLine(e.getOriginalMessage()).replaceAll("`(?:[\\w]+\\.)+(?:\\w+\\$)*(\\w+)`", "$1")
                .replace(" (although at least one Creator exists)", "");
        return "the body is not the JSON this endpoint reads" + where + ": " + why;
    }

    /** Where in the body Jackson stopped, as a reader of the body would name it (alerts[2].labels). */
    public static String path(MismatchedInputException e) {
        StringBuilder sb = new StringBuilder();
        for (var ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (sb.length() > 0) sb.append('.');
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? "the top level" : sb.toString();
    }

    static Response bad(int status, String reason) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(new ErrorBody(reason)).build();
    }

    static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
