package io.acceltriage.triage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AlertOriginTest {

    static final AlertOrigin ORIGINS = new AlertOrigin(io.acceltriage.evidence.NodeAgents.load().platformNamespaces());

    static Alert alert(Map<String, String> labels, String generatorUrl) {
        return new Alert("f", "g", AlertStatus.FIRING, labels, Map.of(), Instant.parse("2026-12-02T13:30:00Z"), null, generatorUrl);
    }

    @Test
    void anAlertATenantsOwnPrometheusEvaluatedIsTheTenantsAndIsToldToAPerson() {
        Alert a = alert(Map.of("alertname", "GpuXidError", "node", "h100-shared-04", "xid", "79"),
                "http://prometheus-tenant.team-raven.svc:9090/graph?g0.expr=vector%281%29");

        assertEquals(Optional.of("team-raven"), ORIGINS.tenantNamespace(a));
        assertEquals(1, ORIGINS.escalations(List.of(a)).size());
        assertTrue(ORIGINS.escalations(List.of(a)).get(0).contains("fences nothing"), ORIGINS.escalations(List.of(a)).get(0));
    }

    @Test
    void thePrometheusOperatorsLabelNamesTheEvaluatingNamespace() {
        Alert a = alert(Map.of("alertname", "GpuXidError", "prometheus", "team-raven/tenant"), null);

        assertEquals(Optional.of("team-raven"), ORIGINS.tenantNamespace(a));
    }

    @Test
    void anAlertOfThePlatformsMonitoringAboutATenantsPodIsThePlatforms() {
        // The `namespace` label is the pod's, not the rule's: KubePodCrashLooping about a tenant pod is the platform's alert.
        Alert a = alert(Map.of("alertname", "KubePodCrashLooping", "namespace", "media", "prometheus", "monitoring/k8s"),
                "http://prometheus-k8s.monitoring.svc:9090/graph");

        assertEquals(Optional.empty(), ORIGINS.tenantNamespace(a));
        assertTrue(ORIGINS.escalations(List.of(a)).isEmpty());
    }

    @Test
    void anAlertWithoutAnInClusterOriginIsNotCalledATenants() {
        assertEquals(Optional.empty(), ORIGINS.tenantNamespace(alert(Map.of("alertname", "X"), "https://grafana.example.com/alerting")));
        assertEquals(Optional.empty(), ORIGINS.tenantNamespace(alert(Map.of("alertname", "X"), null)));
    }
}
