package io.acceltriage.ingest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.http.InvalidPayload;
import io.acceltriage.incident.Alert;
import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Any delivery, however broken, either parses into alerts the store can hold or is refused with
 * {@link InvalidPayload} and a reason: never another exception, which the webhook would answer with a
 * 500, and never an alert whose insert fails, which it would answer with a 503 that Alertmanager retries for ever.
 */
public class AlertmanagerPayloadsPropertyTest {

    public static final String VALID = """
            {"version":"4","groupKey":"{}:{alertname=\\"GpuXidError\\"}","truncatedAlerts":0,"status":"firing",
             "receiver":"acceltriage","groupLabels":{"alertname":"GpuXidError"},"commonLabels":{"severity":"critical"},
             "commonAnnotations":{},"externalURL":"http://alertmanager:9093",
             "alerts":[{"status":"firing","labels":{"alertname":"GpuXidError","node":"gpu-h100-03","gpu":"2","xid":"79",
               "namespace":"ml","pod":"trainer-0","deployment":"trainer"},
               "annotations":{"summary":"XID 79 on GPU 2"},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z",
               "generatorURL":"http://prometheus/graph?g0.expr=x","fingerprint":"a1b2c3d4e5f60718"},
              {"status":"resolved","labels":{"alertname":"GpuTemperatureWatch","Hostname":"gpu-h100-04"},
               "startsAt":"2026-11-30T09:00:00+01:00","endsAt":"2026-11-30T10:05:00.5Z"}]}
            """;

    @Test
    void aBrokenDeliveryParsesOrIsRefusedWithAReason() {
        Gen.forAll(20261130, 3000, BadInputs.jsonMutationsOf(VALID), BadInputs::show, body -> {
            List<Alert> alerts;
            try {
                alerts = AlertmanagerPayloads.parse(body);
            } catch (InvalidPayload e) {
                assertReason(e);
                return;
            }
            alerts.forEach(AlertmanagerPayloadsPropertyTest::assertStorable);
        });
    }

    @Test
    void whatParsesFitsTheStore() {
        Gen.forAll(79, 3000, BadInputs.valueReplacements(VALID), BadInputs::show, body -> {
            try {
                AlertmanagerPayloads.parse(body).forEach(AlertmanagerPayloadsPropertyTest::assertStorable);
            } catch (InvalidPayload e) {
                assertReason(e);
            }
        });
    }

    @Test
    void deepNestingIsRefusedWithAReason() {
        Gen.forAll(1, 30, BadInputs.deepNesting(), s -> s.length() + " characters of nesting", nesting ->
                assertReason(assertThrows(InvalidPayload.class, () -> AlertmanagerPayloads.parse(BadInputs.utf8("{\"alerts\":" + nesting + "}")))));
    }

    static void assertReason(InvalidPayload e) {
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal says why");
        assertTrue(e.getMessage().length() < 600, () -> "a reason is a sentence, not the body: " + e.getMessage().substring(0, 200));
    }

    static void assertStorable(Alert a) {
        assertTrue(a.fingerprint().length() <= 64, "fingerprint");
        assertTrue(a.groupKey().length() <= 2000, "groupKey");
        assertTrue(a.name().length() <= 256, "alertname");
        assertTrue(a.generatorUrl() == null || a.generatorUrl().length() <= 2000, "generatorURL");
        for (String s : List.of(a.fingerprint(), a.groupKey(), a.generatorUrl() == null ? "" : a.generatorUrl())) {
            assertFalse(s.indexOf('\u0000') >= 0, "NUL in a stored string");
        }
        a.labels().forEach((k, v) -> assertFalse(k.indexOf('\u0000') >= 0 || v.indexOf('\u0000') >= 0, "NUL in a label"));
        for (Instant t : new Instant[] {a.startsAt(), a.endsAt()}) {
            assertTrue(t == null || (!t.isBefore(Instant.parse("0001-01-01T00:00:00Z")) && t.isBefore(Instant.parse("+10000-01-01T00:00:00Z"))),
                    () -> "a time java.sql.Timestamp and the store hold: " + t);
        }
        for (String name : AlertmanagerPayloads.NAME_LABELS) {
            String v = a.labels().get(name);
            assertTrue(v == null || v.length() <= 253, () -> "label " + name + " longer than a Kubernetes name: " + v.length());
        }
    }
}
