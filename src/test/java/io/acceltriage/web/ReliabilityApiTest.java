package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.notNullValue;

import io.acceltriage.TestAuth;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** The reliability report over HTTP: reachable by a viewer, its parameters checked with a reason. */
@QuarkusTest
class ReliabilityApiTest {

    @Test
    void aViewerReadsTheReportPerFamilyWithEveryIncidentsTiming() {
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?since=2020-01-01T00:00:00Z").then().statusCode(200)
                .body("since", containsString("2020-01-01")).body("byFamily", notNullValue()).body("timings", notNullValue())
                .body("incidents", notNullValue());
    }

    @Test
    void aBadSinceOrPoolIsA400ThatSaysWhy() {
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?since=yesterday").then().statusCode(400)
                .body("error", containsString("since must be an RFC 3339 time"));
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?pool=../../etc").then().statusCode(400)
                .body("error", containsString("pool must be a Kubernetes label value"));
    }

    @Test
    void withoutATokenThereIsNoReport() {
        given().get("/api/v1/reliability").then().statusCode(401);
    }
}
