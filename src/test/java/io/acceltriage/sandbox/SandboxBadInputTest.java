package io.acceltriage.sandbox;

import static io.acceltriage.testing.Refused.headers;
import static io.acceltriage.testing.Refused.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditVerifier;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.acceltriage.store.Database;
import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import io.acceltriage.testing.RawHttp;
import io.acceltriage.testing.StoreCounts;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's fault injection and reset with bad input: a body that is no fault, a fault naming
 * what is not there, or a caller who may not: a 4xx with a reason, and the simulated cluster, the
 * store and the audit chain as they were.
 */
@QuarkusTest
class SandboxBadInputTest {

    static final String ADMIN = "Bearer admin-token-0123456789";
    static final String VALID = "{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}";

    @Inject
    Database database;
    @Inject
    AuditVerifier verifier;
    @Inject
    Sandbox sandbox;

    RawHttp http;

    @BeforeEach
    void connect() {
        http = new RawHttp(RestAssured.port);
    }

    @Test
    void aBodyThatIsNoFaultOrNamesWhatIsNotThereChangesNothing() {
        Map<String, String> json = headers("Authorization", ADMIN, "Content-Type", "application/json");
        assertEquals(200, http.post("/api/v1/sandbox/reset", json, new byte[0]).status());
        String cluster = nodes();
        StoreCounts before = StoreCounts.settled(database);

        Gen.forAll(51, 200, BadInputs.jsonMutationsOf(VALID).filter(SandboxBadInputTest::notAFault), BadInputs::show,
                body -> refused(http.post("/api/v1/sandbox/faults", json, body), 400));

        Gen<String> kinds = Gen.of("xid", "dbe-ecc", "row-remap-failure", "device-plugin-crash", "nvml-mismatch", "cuda-oom", "node-not-ready");
        Gen<String> nowhere = Gen.oneOf(Gen.strings(0, 40), Gen.of("gpu-h100-99", "cpu-system-01", "", "GPU-H100-03", " gpu-h100-03"));
        Gen<String> faults = Gen.oneOf(
                r -> fault(kinds.next(r), nowhere.next(r), null, 79, "ml/" + nowhere.next(r)),
                r -> fault(Gen.oneOf(Gen.strings(0, 30), Gen.of("XID", "oom", "reboot")).next(r), "gpu-h100-03", 0, 79, null),
                r -> fault(Gen.of("xid", "dbe-ecc", "row-remap-failure").next(r), "gpu-h100-03",
                        Gen.oneOf(Gen.between(8, Integer.MAX_VALUE), Gen.between(Integer.MIN_VALUE, -1)).next(r), 79, null),
                r -> fault("xid", "gpu-h100-03", 1, Gen.between(Integer.MIN_VALUE, 0).next(r), null));
        Gen.forAll(52, 200, faults, String::valueOf, body -> refused(http.post("/api/v1/sandbox/faults", json, BadInputs.utf8(body)), 400));

        assertEquals(before, StoreCounts.of(database), "a refused fault stored or set off something");
        assertEquals(cluster, nodes(), "a refused fault changed the simulated cluster");
        assertTrue(verifier.verify().intact());
    }

    @Test
    void onlyAnApproverDrivesTheSandbox() {
        Map<String, String> admin = headers("Authorization", ADMIN, "Content-Type", "application/json");
        assertEquals(200, http.post("/api/v1/sandbox/reset", admin, new byte[0]).status());
        // A change a reset would undo, made without an alert (whose triage would go on during the batch).
        sandbox.client().nodes().withName("gpu-h100-05").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec().build());
        String cluster = nodes();
        assertTrue(cluster.contains("\"cordoned\":true"), cluster);
        StoreCounts before = StoreCounts.settled(database);
        Gen<String> notAnApprover = Gen.oneOf(Gen.of(null, "", "Bearer", "Bearer viewer-token-0123456789", "Bearer test-token",
                "Basic YWRtaW46YWRtaW4="), Gen.ascii(1, 60).map(s -> "Bearer " + s));
        Gen.forAll(53, 60, notAnApprover, String::valueOf, header -> {
            Map<String, String> h = headers("Authorization", header, "Content-Type", "application/json");
            refused(http.post("/api/v1/sandbox/reset", h, new byte[0]), -1);
            refused(http.post("/api/v1/sandbox/faults", h, BadInputs.utf8(VALID)), -1);
        });
        assertEquals(before, StoreCounts.of(database));
        assertEquals(cluster, nodes(), "the fault is still there: nobody reset the sandbox");
        assertEquals(200, http.post("/api/v1/sandbox/reset", admin, new byte[0]).status());
    }

    String nodes() {
        RawHttp.Answer a = http.get("/api/v1/sandbox/nodes", headers("Authorization", ADMIN));
        assertEquals(200, a.status());
        return a.text();
    }

    static String fault(String kind, String node, Integer gpu, Integer xid, String pod) {
        return "{\"kind\":" + BadInputs.quoted(kind) + ",\"node\":" + BadInputs.quoted(node) + (gpu == null ? "" : ",\"gpu\":" + gpu)
                + (xid == null ? "" : ",\"xid\":" + xid) + (pod == null ? "" : ",\"pod\":" + BadInputs.quoted(pod)) + "}";
    }

    static boolean notAFault(byte[] body) {
        try {
            SandboxResource.parse(new String(body, StandardCharsets.UTF_8));
            return false;
        } catch (IllegalArgumentException e) {
            return true;
        } catch (RuntimeException e) {
            return true; // a parser bug: the endpoint must still refuse it with a 4xx
        }
    }
}
