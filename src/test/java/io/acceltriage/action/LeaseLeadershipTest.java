package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.acceltriage.sandbox.SimulatedApiServer;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Two instances of the service against one cluster (one fabric8 mock API server in CRUD mode, the
 * sandbox's, and one
 * database): only the holder of the Lease acts; the other plans; when the holder goes, the other
 * takes the lease and finishes what was planned.
 */
class LeaseLeadershipTest {

    static void await(BooleanSupplier done, String what) {
        Instant deadline = Instant.now().plusSeconds(20);
        while (!done.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) throw new AssertionError("timed out waiting until " + what);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void aReplicaThatLostTheLeaseStandsAgainAndLeadsOnceTheOtherHolderIsGone() {
        try (SimulatedApiServer server = SimulatedApiServer.start();
                KubernetesClient client = new KubernetesClientBuilder().withConfig(server.client().getConfiguration()).build()) {
            LeaseLeadership a = new LeaseLeadership(client, "acceltriage", "replica-a", Duration.ofSeconds(2));
            await(a::isLeader, "replica-a holds the lease");
            // Another replica takes the lease (as after a renewal of a's too slow under load), then dies without renewing.
            for (int attempt = 0; ; attempt++) {
                try {
                    server.client().leases().inNamespace("acceltriage").withName(LeaseLeadership.LEASE).edit(l -> {
                        l.getSpec().setHolderIdentity("replica-gone");
                        l.getSpec().setAcquireTime(java.time.ZonedDateTime.now());
                        l.getSpec().setRenewTime(java.time.ZonedDateTime.now());
                        return l;
                    });
                    break;
                } catch (io.fabric8.kubernetes.client.KubernetesClientException renewedMeanwhile) {
                    if (renewedMeanwhile.getCode() != 409 || attempt == 20) throw renewedMeanwhile;
                }
            }
            await(() -> !a.isLeader(), "replica-a notices it lost the lease");
            await(a::isLeader, "replica-a leads again once the lease it lost has run out");
            a.close();
        }
    }

    @Test
    void onlyTheLeaseHolderActsAndTheOtherTakesOverWhenItGoes() {
        try (SimulatedApiServer server = SimulatedApiServer.start();
                KubernetesClient clientA = new KubernetesClientBuilder().withConfig(server.client().getConfiguration()).build();
                KubernetesClient clientB = new KubernetesClientBuilder().withConfig(server.client().getConfiguration()).build()) {
            for (String n : List.of("n1", "n2")) {
                clientA.nodes().resource(new NodeBuilder().withNewMetadata().withName(n).endMetadata().withNewSpec().endSpec().build()).create();
            }
            Database database = TestDatabases.h2();
            AuditLog audit = TestAudit.on(database);
            LeaseLeadership a = new LeaseLeadership(clientA, "acceltriage", "replica-a", Duration.ofSeconds(2));
            await(a::isLeader, "replica-a holds the lease");
            LeaseLeadership b = new LeaseLeadership(clientB, "acceltriage", "replica-b", Duration.ofSeconds(2));
            Executor execA = new Executor(clientA, database, audit, a, MitigationsTest.FAST, () -> null);
            Executor execB = new Executor(clientB, database, audit, b, MitigationsTest.FAST, () -> null);
            Verdict allow = new Verdict(Decision.ALLOW, "test", List.of("test"), false);

            ActionRecord byB = execB.carryOut("inc-b", new Proposal(ActionKind.CORDON_NODE, "n2", "t", List.of(), "t"), allow);
            assertEquals(ActionStatus.PLANNED, byB.status(), "the replica without the lease only plans");
            assertFalse(Boolean.TRUE.equals(clientA.nodes().withName("n2").get().getSpec().getUnschedulable()));
            assertEquals(0, execB.resumePlanned());

            ActionRecord byA = execA.carryOut("inc-a", new Proposal(ActionKind.CORDON_NODE, "n1", "t", List.of(), "t"), allow);
            assertEquals(ActionStatus.SUCCEEDED, byA.status(), byA.detail());

            a.close();
            assertFalse(a.isLeader(), "a replica that lets the lease go stops acting at once");
            await(b::isLeader, "replica-b takes the lease");
            assertEquals(1, execB.resumePlanned());
            assertTrue(Boolean.TRUE.equals(clientB.nodes().withName("n2").get().getSpec().getUnschedulable()));
            assertEquals(ActionStatus.SUCCEEDED, execB.find(byB.id()).orElseThrow().status());
            b.close();
        }
    }

    @Test
    void anUndoSentToTheReplicaWithoutTheLeaseIsStoredAndCarriedOutOnceByTheLeader() {
        try (SimulatedApiServer server = SimulatedApiServer.start();
                KubernetesClient clientA = new KubernetesClientBuilder().withConfig(server.client().getConfiguration()).build();
                KubernetesClient clientB = new KubernetesClientBuilder().withConfig(server.client().getConfiguration()).build()) {
            clientA.nodes().resource(new NodeBuilder().withNewMetadata().withName("u1").endMetadata().withNewSpec().endSpec().build()).create();
            Database database = TestDatabases.h2();
            AuditLog audit = TestAudit.on(database);
            LeaseLeadership a = new LeaseLeadership(clientA, "acceltriage", "replica-a", Duration.ofSeconds(2));
            await(a::isLeader, "replica-a holds the lease");
            LeaseLeadership b = new LeaseLeadership(clientB, "acceltriage", "replica-b", Duration.ofSeconds(2));
            Executor execA = new Executor(clientA, database, audit, a, MitigationsTest.FAST, () -> null);
            Executor execB = new Executor(clientB, database, audit, b, MitigationsTest.FAST, () -> null);
            Verdict allow = new Verdict(Decision.ALLOW, "test", List.of("test"), false);
            ActionRecord cordon = execA.carryOut("inc-u", new Proposal(ActionKind.CORDON_NODE, "u1", "t", List.of(), "t"), allow);
            assertEquals(ActionStatus.SUCCEEDED, cordon.status(), cordon.detail());

            // Behind a Service the undo lands on whichever replica: the one without the lease accepts it and stores it.
            assertEquals(ActionStatus.SUCCEEDED, execB.undo(cordon.id(), "alice").status());
            execB.undo(cordon.id(), "alice"); // a second click is the same request
            assertEquals(0, execB.runRequestedUndos(), "only the leader carries undos out");
            assertTrue(Boolean.TRUE.equals(clientA.nodes().withName("u1").get().getSpec().getUnschedulable()));

            assertEquals(1, execA.runRequestedUndos());
            assertEquals(ActionStatus.UNDONE, execA.find(cordon.id()).orElseThrow().status());
            assertFalse(Boolean.TRUE.equals(clientA.nodes().withName("u1").get().getSpec().getUnschedulable()), "uncordoned by the leader");
            assertEquals(0, execA.runRequestedUndos(), "carried out once");
            a.close();
            b.close();
        }
    }
}
