package io.acceltriage.access;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No endpoint or page answers without a valid token or session, except the exempt ones. The routes
 * are read from every JAX-RS resource of the service by reflection, so an endpoint added tomorrow is
 * checked without anyone adding it here.
 */
@QuarkusTest
class AccessRoutesTest {

    record Route(String method, String template, String path) {
        @Override
        public String toString() {
            return method + " " + template;
        }
    }

    private static final Map<Class<? extends Annotation>, String> METHODS = Map.of(GET.class, "GET", POST.class, "POST",
            PUT.class, "PUT", DELETE.class, "DELETE", PATCH.class, "PATCH", HEAD.class, "HEAD");

    /** Every resource method of the service's own classes (target/classes), with its path parameters filled in. */
    static List<Route> routes() throws IOException {
        java.nio.file.Path classes = Paths.get("target", "classes");
        List<Route> out = new ArrayList<>();
        try (Stream<java.nio.file.Path> files = Files.walk(classes)) {
            for (java.nio.file.Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(f).toString().replace('/', '.').replace(".class", "");
                Class<?> type;
                try {
                    type = Class.forName(name, false, AccessRoutesTest.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    continue;
                }
                Path root = type.getAnnotation(Path.class);
                for (Method m : type.getDeclaredMethods()) {
                    for (Map.Entry<Class<? extends Annotation>, String> verb : METHODS.entrySet()) {
                        if (m.isAnnotationPresent(verb.getKey())) {
                            Path sub = m.getAnnotation(Path.class);
                            String template = join(root == null ? "" : root.value(), sub == null ? "" : sub.value());
                            out.add(new Route(verb.getValue(), template, template.replaceAll("\\{[^}]+}", "x")));
                        }
                    }
                }
            }
        }
        return out;
    }

    static Stream<Route> protectedRoutes() throws IOException {
        return routes().stream().filter(r -> AccessRules.exempt(r.method(), r.path()).isEmpty());
    }

    private static String join(String a, String b) {
        String s = ("/" + a + "/" + b).replaceAll("/+", "/");
        return s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    @BeforeEach
    @AfterEach
    void anonymous() {
        TestAuth.signOut();
    }

    @Test
    void theRouteListCoversTheApiThePagesAndTheExemptWebhook() throws IOException {
        List<String> names = routes().stream().map(Route::toString).toList();
        assertTrue(names.containsAll(List.of("GET /api/v1/incidents", "GET /api/v1/audit", "GET /", "GET /incidents/{id}",
                "GET /audit", "GET /fleet", "POST /incidents/{id}/actions/{action}/approve", "POST /api/v1/sandbox/reset",
                "POST /api/v1/alerts")), names.toString());
        assertTrue(AccessRules.exempt("POST", "/api/v1/alerts").isPresent());
        assertTrue(AccessRules.EXEMPT.stream().allMatch(e -> !e.why().isBlank()), "every exemption says why");
    }

    @ParameterizedTest
    @MethodSource("protectedRoutes")
    void noProtectedRouteAnswersWithoutCredentials(Route route) {
        Response r = given().redirects().follow(false).contentType("application/x-www-form-urlencoded")
                .request(route.method(), route.path());
        if (route.path().startsWith("/api/")) {
            assertEquals(401, r.statusCode(), route + " answered " + r.statusCode() + ": " + r.asString());
            assertTrue(r.asString().contains("no credentials"), r.asString());
        } else {
            assertEquals(303, r.statusCode(), route + " answered " + r.statusCode() + ": " + r.asString());
            assertTrue(r.header("Location").contains("/login"), r.header("Location"));
        }
        Response forged = given().redirects().follow(false).header("Authorization", "Bearer not-a-token-0123456789")
                .contentType("application/x-www-form-urlencoded").request(route.method(), route.path());
        assertTrue(forged.statusCode() == 401 || forged.statusCode() == 303, route + " with a forged token: " + forged.statusCode());
    }

    @Test
    void aViewerReadsButMayNotActAndTheRefusalIsAudited() {
        given().header("Authorization", "Bearer " + TestAuth.VIEWER).get("/api/v1/incidents").then().statusCode(200);
        given().header("Authorization", "Bearer " + TestAuth.VIEWER).post("/api/v1/sandbox/reset").then().statusCode(403)
                .body("error", containsString("test-viewer is a viewer; POST /api/v1/sandbox/reset needs approver or admin"));
        given().header("Authorization", "Bearer " + TestAuth.VIEWER).contentType("application/x-www-form-urlencoded")
                .post("/incidents/inc-x/actions/act-x/approve").then().statusCode(403);
        given().header("Authorization", "Bearer " + TestAuth.VIEWER).post("/fleet/breaker/reset").then().statusCode(403);

        given().header("Authorization", "Bearer " + TestAuth.ADMIN).queryParam("kind", "access.denied").queryParam("actor", "test-viewer")
                .queryParam("q", "/api/v1/sandbox/reset").get("/api/v1/audit").then().statusCode(200)
                .body("items[-1].payload.method", equalTo("POST"))
                .body("items[-1].payload.reason", containsString("needs approver"));
    }

    @Test
    void anApproverMayActAndAnAdminMayDoWhatAnApproverMay() {
        given().header("Authorization", "Bearer " + TestAuth.APPROVER).post("/api/v1/sandbox/reset").then().statusCode(200);
        given().header("Authorization", "Bearer " + TestAuth.ADMIN).post("/api/v1/sandbox/reset").then().statusCode(200);
        given().header("Authorization", "Bearer " + TestAuth.APPROVER).redirects().follow(false).post("/fleet/breaker/reset")
                .then().statusCode(303);
    }

    @Test
    void anAnonymousRequestIsAuditedWithoutTheTokenItSent() {
        given().header("Authorization", "Bearer wrong-token-abcdefghijkl").get("/api/v1/incidents").then().statusCode(401)
                .header("WWW-Authenticate", startsWith("Bearer"));
        String audit = given().header("Authorization", "Bearer " + TestAuth.ADMIN).queryParam("kind", "access.denied")
                .queryParam("limit", 1000).get("/api/v1/audit").asString();
        assertTrue(audit.contains("not one ACCELTRIAGE_ACCESS_TOKENS issued"), audit);
        assertFalse(audit.contains("wrong-token-abcdefghijkl"), "a presented token never lands in the audit log");
    }

    @Test
    void signingInSetsAStrictHttpOnlySessionThatOpensThePages() {
        Response bad = given().redirects().follow(false).formParam("token", "guess-guess-guess-guess").formParam("next", "/fleet")
                .post("/login");
        assertEquals(401, bad.statusCode());
        assertTrue(bad.asString().contains("not recognised"));

        Response ok = given().redirects().follow(false).formParam("token", TestAuth.VIEWER).formParam("next", "/fleet").post("/login");
        assertEquals(303, ok.statusCode());
        assertTrue(ok.header("Location").endsWith("/fleet"), ok.header("Location"));
        String setCookie = ok.header("Set-Cookie");
        assertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"), setCookie);
        String session = ok.cookie(Sessions.COOKIE);

        given().cookie(Sessions.COOKIE, session).get("/fleet").then().statusCode(200)
                .body(containsString("test-viewer")).body(containsString("h100-train"));
        String tampered = session.substring(0, session.length() - 2) + (session.endsWith("AA") ? "BB" : "AA");
        given().redirects().follow(false).cookie(Sessions.COOKIE, tampered).get("/fleet").then().statusCode(303);
        // A viewer's session may not act, and no session may act from another site's form.
        given().redirects().follow(false).cookie(Sessions.COOKIE, session).post("/fleet/breaker/reset").then().statusCode(403);
        String approver = given().redirects().follow(false).formParam("token", TestAuth.APPROVER).post("/login").cookie(Sessions.COOKIE);
        given().redirects().follow(false).cookie(Sessions.COOKIE, approver).header("Origin", "https://evil.example")
                .post("/fleet/breaker/reset").then().statusCode(403);
        given().redirects().follow(false).cookie(Sessions.COOKIE, approver).post("/fleet/breaker/reset").then().statusCode(303);
    }

    @Test
    void theLoginNeverRedirectsOffSite() {
        assertEquals("/", LoginResource.safeNext("//evil.example/x"));
        assertEquals("/", LoginResource.safeNext("https://evil.example/"));
        assertEquals("/incidents/inc-1?x=1", LoginResource.safeNext("/incidents/inc-1?x=1"));
        assertTrue(RestAssured.requestSpecification == null);
    }
}
