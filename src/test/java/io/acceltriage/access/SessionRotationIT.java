package io.acceltriage.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.ServiceProcess;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotating a leaked token must end the sessions opened with it. The packaged service restarted with the same
 * session key (as a second replica or a rolled-out Deployment would run) and a new token under the same name and
 * role refuses the old session cookie, and the new token signs in.
 */
class SessionRotationIT {

    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final String KEY = "session-key-shared-by-the-replicas-0123456789";
    static final String BEFORE = "alice-token-before-rotation-01";
    static final String AFTER = "alice-token-after-rotation-002";

    @Test
    void aSessionOpenedWithAReplacedTokenIsRefusedAndTheNewTokenSignsIn(@TempDir Path dir) throws Exception {
        String cookie;
        try (ServiceProcess s = ServiceProcess.start(dir, env(BEFORE)).awaitReady(Duration.ofSeconds(120))) {
            cookie = signIn(s, BEFORE);
            assertEquals(200, audit(s, cookie).statusCode(), "the session works while its token is issued");
        }
        try (ServiceProcess s = ServiceProcess.start(dir, env(AFTER)).awaitReady(Duration.ofSeconds(120))) {
            HttpResponse<String> old = audit(s, cookie);
            assertEquals(303, old.statusCode(), "same name, same role, same session key: the replaced token's session ends");
            assertTrue(old.headers().firstValue("Location").orElse("").startsWith("/login"), old.headers().toString());
            assertEquals(200, audit(s, signIn(s, AFTER)).statusCode(), "the new token signs in");
        }
    }

    static Map<String, String> env(String token) {
        return Map.of("ACCELTRIAGE_ACCESS_TOKENS", "alice:approver:" + token, "ACCELTRIAGE_ACCESS_SESSION_KEY", KEY);
    }

    static String signIn(ServiceProcess s, String token) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.url("/login")))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(303, r.statusCode(), r.body());
        String setCookie = r.headers().firstValue("Set-Cookie").orElseThrow();
        return setCookie.substring(setCookie.indexOf('=') + 1, setCookie.indexOf(';'));
    }

    static HttpResponse<String> audit(ServiceProcess s, String cookie) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(s.url("/audit"))).header("Cookie", Sessions.COOKIE + "=" + cookie)
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
