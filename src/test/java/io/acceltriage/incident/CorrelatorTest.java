package io.acceltriage.incident;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.acceltriage.sandbox.SimulatedApiServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Correlation over a simulated API server: what the cluster knows (a pod's node, its owners) joins
 * alerts whose labels alone would open separate incidents.
 */
class CorrelatorTest {

    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private static SimulatedApiServer server;

    @BeforeAll
    static void world() {
        server = SimulatedApiServer.start();
        server.apply(Map.of("apiVersion", "v1", "kind", "Node", "metadata", Map.of("name", "gpu-1")));
        server.apply(Map.of("apiVersion", "v1", "kind", "Node", "metadata", Map.of("name", "gpu-2")));
        server.apply(Map.of("apiVersion", "jobset.x-k8s.io/v1alpha2", "kind", "JobSet",
                "metadata", Map.of("name", "pretrain", "namespace", "ml", "uid", "js-1")));
        server.apply(Map.of("apiVersion", "batch/v1", "kind", "Job", "metadata", Map.of("name", "pretrain-workers-0",
                "namespace", "ml", "uid", "job-1", "ownerReferences", List.of(owner("jobset.x-k8s.io/v1alpha2", "JobSet", "pretrain", "js-1")))));
        for (int i = 0; i < 2; i++) {
            server.apply(pod("ml", "pretrain-workers-0-" + i, "gpu-" + (i + 1), owner("batch/v1", "Job", "pretrain-workers-0", "job-1")));
        }
        server.apply(pod("serve", "notebook-0", "gpu-2", null));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aPodAlertAndANodeAlertAboutItsNodeLandInOneIncident() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("f1", Map.of("alertname", "KubePodCrashLooping", "namespace", "serve", "pod", "notebook-0")),
                alert("f2", Map.of("alertname", "GpuXidError", "node", "gpu-2", "gpu", "0", "xid", "79"))), a -> T0);

        assertEquals(1, index.groups().size(), "incidents: " + index.groups());
        assertEquals(2, index.groups().get(0).alerts().size());
        assertEquals(Subject.node("gpu-2"), index.groups().get(0).subject(), "the node alert names where to look");
    }

    @Test
    void alertsAboutDifferentMembersOfAGangAreOneIncidentAboutTheGang() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("g1", Map.of("alertname", "NcclWatchdogTimeout", "namespace", "ml", "pod", "pretrain-workers-0-0")),
                alert("g2", Map.of("alertname", "NcclWatchdogTimeout", "namespace", "ml", "pod", "pretrain-workers-0-1")),
                alert("g3", Map.of("alertname", "KubeJobFailed", "namespace", "ml", "job_name", "pretrain-workers-0"))), a -> T0);

        assertEquals(1, index.groups().size(), "incidents: " + index.groups());
        assertEquals(new Subject(Subject.Kind.WORKLOAD, "ml", "jobset/pretrain"), index.groups().get(0).subject());
        assertEquals(3, index.groups().get(0).alerts().size());
    }

    @Test
    void aSecondAlertAboutANodeJoinsThatNodesIncidentEvenWhenAnotherNodeOfItsGangOpenedOneSince() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("s1", Map.of("alertname", "GpuXidError", "node", "gpu-1", "gpu", "0", "xid", "79")),
                alert("s2", Map.of("alertname", "GpuXidError", "node", "gpu-2", "gpu", "0", "xid", "79")),
                alert("s3", Map.of("alertname", "GpuTemperatureWatch", "node", "gpu-1", "gpu", "0"))), a -> T0);

        assertEquals(2, index.groups().size(), "incidents: " + index.groups());
        assertEquals(Subject.node("gpu-1"), index.groups().get(0).subject());
        assertEquals(2, index.groups().get(0).alerts().size(), "gpu-1's second alert joins gpu-1's incident");
    }

    @Test
    void anAlertNamingItsWorkloadUnderALabelOfItsOwnIsAboutThatWorkloadAndJoinsItsIncident() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("j1", Map.of("alertname", "TrainingJobFailedRestart", "namespace", "ml", "job", "pretrain")),
                alert("j2", Map.of("alertname", "NcclWatchdogTimeout", "namespace", "ml", "pod", "pretrain-workers-0-1"))), a -> T0);

        assertEquals(1, index.groups().size(), "incidents: " + index.groups());
        assertEquals(new Subject(Subject.Kind.WORKLOAD, "ml", "jobset/pretrain"), index.groups().get(0).subject());
    }

    @Test
    void aLabelValueThatNamesNoWorkloadOfTheNamespaceLeavesTheAlertItsOwnSubject() {
        MemoryIndex index = new MemoryIndex();
        // `job` is Prometheus' scrape job here, as it usually is: no workload of ml is called that
        index.addAll(correlator(), List.of(alert("k1", Map.of("alertname", "TrainingStalled", "namespace", "ml",
                "job", "kube-state-metrics"))), a -> T0);

        assertEquals(Subject.Kind.ALERT, index.groups().get(0).subject().kind(), "subject: " + index.groups().get(0).subject());
    }

    @Test
    void aDeviceAlertOnTheNodeOfOneGangMemberJoinsTheGangsIncidentAndNamesTheNode() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("k1", Map.of("alertname", "NcclWatchdogTimeout", "namespace", "ml", "pod", "pretrain-workers-0-1")),
                alert("k2", Map.of("alertname", "GpuXidError", "node", "gpu-1", "gpu", "3", "xid", "48"))), a -> T0);

        assertEquals(1, index.groups().size(), "incidents: " + index.groups());
        assertEquals(Subject.node("gpu-1"), index.groups().get(0).subject());
    }

    @Test
    void aDeviceAlertOnASecondNodeOfTheGangOpensThatNodesOwnIncident() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("n1", Map.of("alertname", "GpuXidError", "node", "gpu-1", "gpu", "3", "xid", "48")),
                alert("n2", Map.of("alertname", "GpuXidError", "node", "gpu-2", "gpu", "6", "xid", "79"))), a -> T0);

        assertEquals(List.of(Subject.node("gpu-1"), Subject.node("gpu-2")),
                index.groups().stream().map(g -> g.subject()).toList(), "incidents: " + index.groups());
    }

    @Test
    void alertsAboutUnrelatedNodesStayApart() {
        MemoryIndex index = new MemoryIndex();
        index.addAll(correlator(), List.of(
                alert("h1", Map.of("alertname", "GpuXidError", "node", "gpu-9", "xid", "79")),
                alert("h2", Map.of("alertname", "GpuXidError", "node", "gpu-8", "xid", "79"))), a -> T0);

        assertEquals(2, index.groups().size());
    }

    @Test
    void aStormOfOneAlertnameOverManyNodesBecomesOneFleetIncidentThatCountsEveryAlert() {
        MemoryIndex index = new MemoryIndex();
        List<Alert> storm = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            for (int repeat = 0; repeat < 3; repeat++) {
                storm.add(alert("s" + i + "-" + repeat, Map.of("alertname", "GpuNodeCapacityLost", "node", "h100-" + i,
                        "repeat", String.valueOf(repeat))));
            }
        }
        index.addAll(correlator(), storm, a -> T0.plusSeconds(storm.indexOf(a) / 10));
        // An unrelated alert in the same minute is not swept into the storm.
        index.addAll(correlator(), List.of(alert("x", Map.of("alertname", "KubePodCrashLooping", "namespace", "serve",
                "pod", "notebook-0"))), a -> T0.plusSeconds(20));

        assertEquals(2, index.groups().size(), "incidents: " + index.groups().stream().map(MemoryIndex.Group::subject).toList());
        assertEquals(Correlator.fleetSubject("GpuNodeCapacityLost"), index.groups().get(0).subject());
        assertEquals(120, index.groups().get(0).alerts().size());
    }

    @Test
    void aFewNodesFiringTheSameAlertAreNoStorm() {
        Correlator correlator = new Correlator(new SubjectResolver(new io.acceltriage.cluster.Membership(server.client())), new StormWindow(10, Duration.ofSeconds(60)));
        MemoryIndex index = new MemoryIndex();
        List<Alert> alerts = new ArrayList<>();
        for (int i = 0; i < 10; i++) alerts.add(alert("n" + i, Map.of("alertname", "GpuNodeCapacityLost", "node", "h100-" + i)));
        index.addAll(correlator, alerts, a -> T0);

        assertEquals(10, index.groups().size());
    }

    private static Correlator correlator() {
        return new Correlator(new SubjectResolver(new io.acceltriage.cluster.Membership(server.client())), StormWindow.defaults());
    }

    private static Alert alert(String fingerprint, Map<String, String> labels) {
        return new Alert(fingerprint, "test", AlertStatus.FIRING, labels, Map.of(), T0, null, null);
    }

    private static Map<String, Object> owner(String apiVersion, String kind, String name, String uid) {
        return Map.of("apiVersion", apiVersion, "kind", kind, "name", name, "uid", uid, "controller", true);
    }

    private static Map<String, Object> pod(String ns, String name, String node, Map<String, Object> owner) {
        Map<String, Object> md = new LinkedHashMap<>(Map.of("name", name, "namespace", ns));
        if (owner != null) md.put("ownerReferences", List.of(owner));
        return Map.of("apiVersion", "v1", "kind", "Pod", "metadata", md,
                "spec", Map.of("nodeName", node, "containers", List.of(Map.of("name", "main", "image", "busybox"))));
    }
}
