package io.acceltriage.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.ServiceProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing acknowledged is lost: the packaged service takes an alert, answers 200, and is killed
 * with SIGKILL the moment after; started again on the same data folder, it still has the alert and
 * triages it. A real process, really killed.
 */
class CrashDurabilityIT {

    static final String VIEWER_TOKEN = "crash-viewer-token-0123456789";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps service.log
    Path data;

    @Test
    void anAcknowledgedAlertSurvivesKillMinus9AndIsTriagedAfterTheRestart() {
        ServiceProcess first = ServiceProcess.start(data, Map.of(
                "ACCELTRIAGE_ALERTMANAGER_TOKEN", "crash-token",
                "ACCELTRIAGE_ACCESS_TOKENS", "crash-test:viewer:" + VIEWER_TOKEN));
        try {
            first.awaitReady(Duration.ofSeconds(120));
            String body = """
                    {"version":"4","groupKey":"{}:{crash=\\"test\\"}","status":"firing","receiver":"acceltriage","alerts":[
                     {"status":"firing","labels":{"alertname":"GpuXidDeviceFault","node":"gpu-h100-11","gpu":"5","xid":"79","severity":"critical"},
                      "annotations":{"summary":"XID 79"},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"c0ffee0000000079"}]}
                    """;
            HttpResponse<String> ack = first.postJson("/api/v1/alerts", "crash-token", body);
            assertEquals(200, ack.statusCode(), ack.body());
        } finally {
            first.kill(); // SIGKILL: no shutdown hooks, no flush
        }
        try (ServiceProcess second = first.restart()) {
            second.awaitReady(Duration.ofSeconds(120));
            String incidents = second.awaitBody("/api/v1/incidents?node=gpu-h100-11", VIEWER_TOKEN, Duration.ofSeconds(60),
                    b -> b.contains("\"family\":\""));
            assertTrue(incidents.contains("\"alertCount\":1"), incidents);
        }
    }
}
