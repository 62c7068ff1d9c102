package io.acceltriage.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.http.InvalidPayload;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class AlertmanagerPayloadsTest {

    static List<Alert> parse(String json) {
        return AlertmanagerPayloads.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheZeroEndTimeOfAFiringAlertAsNotSet() {
        Alert a = parse("{\"version\":\"4\",\"groupKey\":\"g\",\"alerts\":[{\"status\":\"firing\",\"labels\":{\"alertname\":\"A\"},"
                + "\"startsAt\":\"2026-11-30T10:00:00.123+01:00\",\"endsAt\":\"0001-01-01T00:00:00Z\",\"fingerprint\":\"f\"}]}").get(0);
        assertEquals(AlertStatus.FIRING, a.status());
        assertNull(a.endsAt());
        assertEquals("2026-11-30T09:00:00.123Z", a.startsAt().toString());
    }

    @Test
    void computesAStableFingerprintWhenTheSenderGivesNone() {
        String one = "{\"alerts\":[{\"status\":\"firing\",\"labels\":{\"alertname\":\"A\",\"node\":\"n\"},\"startsAt\":\"2026-11-30T10:00:00Z\"}]}";
        String other = "{\"alerts\":[{\"status\":\"firing\",\"labels\":{\"node\":\"n\",\"alertname\":\"A\"},\"startsAt\":\"2026-11-30T10:00:00Z\"}]}";
        assertEquals(parse(one).get(0).fingerprint(), parse(other).get(0).fingerprint());
        assertEquals(16, parse(one).get(0).fingerprint().length());
    }

    @Test
    void rejectsWhatItCannotTrust() {
        assertTrue(assertThrows(InvalidPayload.class, () -> parse("")).getMessage().contains("empty body"));
        assertTrue(assertThrows(InvalidPayload.class, () -> parse("null")).getMessage().contains("null"));
        assertTrue(assertThrows(InvalidPayload.class, () -> parse("{\"version\":\"5\",\"alerts\":[]}")).getMessage().contains("version"));
        assertTrue(assertThrows(InvalidPayload.class, () -> parse("{\"alerts\":[]} trailing")).getMessage().contains("malformed"));
        assertTrue(assertThrows(InvalidPayload.class,
                () -> parse("{\"alerts\":[{\"status\":\"firing\",\"labels\":{\"node\":\"n\"},\"startsAt\":\"2026-11-30T10:00:00Z\"}]}"))
                .getMessage().contains("alertname"));
        assertTrue(assertThrows(InvalidPayload.class,
                () -> parse("{\"alerts\":[{\"status\":\"firing\",\"labels\":{\"alertname\":null},\"startsAt\":\"2026-11-30T10:00:00Z\"}]}"))
                .getMessage().contains("values must be strings"));
    }
}
