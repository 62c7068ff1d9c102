package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.TestAudit;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the executor meets an API server that misbehaves, scripted with the fabric8 mock server's
 * expectations: retries on 409 and 5xx, gives up after its attempts, and escalates (UNVERIFIED) when
 * the change did not stick.
 */
class ApiFailuresTest {

    static final Timing FAST = new Timing(Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofMillis(50));
    static final Node NODE = new NodeBuilder().withNewMetadata().withName("n1").withResourceVersion("1").endMetadata()
            .withNewSpec().withUnschedulable(false).endSpec().build();

    // Long enough for a healthy read on a loaded 2-core machine, short enough that three timeouts stay
    // far below the bounds the tests assert (and the 30 s a hung server holds its answer).
    static final int REQUEST_TIMEOUT_MS = 1000;

    KubernetesMockServer server;
    Database database;
    Executor executor;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        database = TestDatabases.h2();
        // No client-side retries: the executor's own attempts are what is under test. A short request
        // timeout stands for the production one (acceltriage.cluster.request-timeout) against a hung server.
        var client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client.ConfigBuilder(
                server.createClient().getConfiguration()).withRequestRetryBackoffLimit(0).withRequestTimeout(REQUEST_TIMEOUT_MS).build())
                .build();
        executor = new Executor(client, database, TestAudit.on(database), Leadership.ALWAYS, FAST, () -> null);
    }

    @AfterEach
    void stop() {
        server.destroy();
    }

    ActionRecord cordon() {
        return executor.carryOut("inc-1", new Proposal(ActionKind.CORDON_NODE, "n1", "test", List.of(), "test"),
                new Verdict(Decision.ALLOW, "test", List.of("test"), false));
    }

    @Test
    void threeServerErrorsInARowFailTheActionAfterItsAttempts() {
        server.expect().get().withPath("/api/v1/nodes/n1").andReturn(200, NODE).always();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(500, "etcd unavailable").times(3);
        ActionRecord r = cordon();
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().contains("HTTP 500") && r.detail().contains("gave up after 3 attempts"), r.detail());
    }

    @Test
    void aConflictIsRetriedAndAChangeThatDoesNotStickIsUnverified() {
        server.expect().get().withPath("/api/v1/nodes/n1").andReturn(200, NODE).always();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(409, "the object has been modified").once();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, new NodeBuilder(NODE).editSpec().withUnschedulable(true)
                .endSpec().build()).once();
        ActionRecord r = cordon();
        // The API server accepted the second patch, yet reading the node back shows it schedulable.
        assertEquals(ActionStatus.UNVERIFIED, r.status(), r.detail());
        assertTrue(r.detail().startsWith("cordoned n1; verification failed: node n1 is still schedulable"), r.detail());
    }

    @Test
    void aHungApiServerTimesOutEachAttemptAndTheActionFailsWithinItsBoundSayingWhatToCheck() {
        server.expect().get().withPath("/api/v1/nodes/n1").andReturn(200, NODE).always();
        // The PATCH is answered long after the client stopped waiting: a hung API server.
        server.expect().patch().delay(30, java.util.concurrent.TimeUnit.SECONDS).withPath("/api/v1/nodes/n1").andReturn(200, NODE).always();
        long began = System.nanoTime();
        ActionRecord r = cordon();
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("no answer within") && r.detail().contains("gave up after 3 attempts"), r.detail());
        assertTrue(r.detail().contains("check the API server"), r.detail());
        assertEquals(3, patches(), "a timeout is retried like a 5xx, and only so often");
        // Three timeouts and two backoffs (200 + 400 ms), far from the 30 s the server holds each answer.
        assertTrue(tookMs < 10_000, "took " + tookMs + " ms");
    }

    private int patches() {
        int n = 0;
        int requests = server.getRequestCount();
        for (int i = 0; i < requests; i++) {
            try {
                var request = server.takeRequest(1, java.util.concurrent.TimeUnit.SECONDS);
                if (request != null && "PATCH".equals(request.getMethod())) n++;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        return n;
    }

    @Test
    void aForbiddenAnswerIsNotRetried() {
        server.expect().get().withPath("/api/v1/nodes/n1").andReturn(200, NODE).always();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(403, "nodes is forbidden").always();
        ActionRecord r = cordon();
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().contains("HTTP 403") && !r.detail().contains("gave up"), r.detail());
    }

    @Test
    void anEvictionThatStaysTooManyRequestsTimesOut() {
        server.expect().get().withPath("/api/v1/nodes/n1").andReturn(200, new NodeBuilder(NODE).editSpec().withUnschedulable(true)
                .endSpec().build()).always();
        server.expect().get().withPath("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1").andReturn(200,
                new io.fabric8.kubernetes.api.model.PodListBuilder().addNewItem().withNewMetadata().withName("p").withNamespace("ns")
                        .endMetadata().withNewSpec().withNodeName("n1").endSpec().endItem().build()).always();
        server.expect().post().withPath("/api/v1/namespaces/ns/pods/p/eviction").andReturn(429, "Cannot evict pod as it would violate"
                + " the pod's disruption budget.").always();
        ActionRecord r = executor.carryOut("inc-2", new Proposal(ActionKind.DRAIN_NODE, "n1", "test", List.of(), "test"),
                new Verdict(Decision.ALLOW, "test", List.of("test"), false));
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().contains("PodDisruptionBudgets still block ns/p after 1 s"), r.detail());
    }
}
