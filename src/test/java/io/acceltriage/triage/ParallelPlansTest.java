package io.acceltriage.triage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.Judgement;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.cluster.PoolCensus;
import io.acceltriage.cluster.PoolState;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.policy.ActionHistory;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Breaker;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicyContext;
import io.acceltriage.policy.PolicyEngine;
import io.acceltriage.policy.Proposal;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two triages deciding at once, as two workers or two replicas on one database do: each sees a pool with room for
 * one more cordon, and only one of them may take it. On H2 always, on PostgreSQL when ACCELTRIAGE_TEST_POSTGRES_URL is set.
 */
class ParallelPlansTest {

    private static final String POOL = "h100-train";
    private static final PolicyContext DEVICE = new PolicyContext(Family.DEVICE, 0.95, false);
    private static SimulatedCluster world;

    @BeforeAll
    static void start() {
        world = SimulatedCluster.start();
    }

    @AfterAll
    static void stop() {
        world.close();
    }

    static Stream<Database> databases() {
        return TestDatabases.all().stream();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void ofTwoCordonsInOnePoolDecidedAtOnceWhoseCapHasRoomForOneOneIsPlannedAndTheOtherRefused(Database database) throws Exception {
        List<String> nodes = world.client().nodes().list().getItems().stream()
                .filter(n -> POOL.equals(n.getMetadata().getLabels().get("acceltriage.io/pool")))
                .filter(n -> !Boolean.TRUE.equals(n.getSpec().getUnschedulable())).map(n -> n.getMetadata().getName()).sorted()
                .limit(2).toList();
        assertEquals(2, nodes.size(), "the sandbox's " + POOL + " pool has two schedulable nodes");
        PoolCensus census = new PoolCensus(world.client(), List.of("acceltriage.io/pool"), List.of("nvidia.com/gpu", "google.com/tpu"));
        PoolState pool = census.poolOf(nodes.get(0));
        // A share whose cap is one more than the pool has cordoned now: room for exactly one cordon.
        double share = (pool.cordoned() + 1.5) / pool.nodes();
        Policy policy = Policy.parse("race.yaml", ("""
                apiVersion: acceltriage.io/v1
                kind: Policy
                actions:
                  cordon-node: {decision: allow, minConfidence: 0.5}
                limits: {maxCordonedShareOfPool: %s, keepLastHealthyNode: false}
                """.formatted(share)).getBytes(StandardCharsets.UTF_8));
        PolicyEngine engine = new PolicyEngine(() -> policy, census, ActionHistory.NONE, Breaker.inMemory(), Clock.systemUTC());
        var audit = TestAudit.on(database);
        // Two processes: each its own executor (its own claims), one database.
        List<Executor> replicas = List.of(new Executor(world.client(), database, audit), new Executor(world.client(), database, audit));

        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<Future<List<Judgement>>> runs = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Executor executor = replicas.get(i);
                String node = nodes.get(i);
                String incident = "inc-race-" + i + "-" + UUID.randomUUID().toString().substring(0, 8);
                runs.add(threads.submit(() -> {
                    Proposal cordon = new Proposal(ActionKind.CORDON_NODE, node, "XID 79 on " + node, List.of(), "test");
                    Judgement decided = new Judgement(cordon, engine.forOneAssessment().decide(cordon, DEVICE));
                    assertEquals(Decision.ALLOW, decided.verdict().decision(), "alone, each cordon fits the cap: " + decided.verdict());
                    ActionPlans plans = new ActionPlans(executor, engine);
                    ActionPlans.Prepared prepared = plans.prepare(List.of(decided));
                    // Both decided before either recorded: only the lock and the count of planned fences can keep one out.
                    together.await();
                    return database.transaction(tx -> {
                        ActionPlans.Confirmed c = plans.confirm(tx, incident, prepared);
                        plans.record(tx, incident, c.judgements());
                        return c.judgements();
                    });
                }));
            }
            List<Judgement> first = runs.get(0).get();
            List<Judgement> second = runs.get(1).get();
            List<Judgement> all = Stream.concat(first.stream(), second.stream()).toList();
            assertEquals(1, all.stream().filter(j -> j.verdict().decision() == Decision.ALLOW).count(), all.toString());
            Judgement refused = all.stream().filter(j -> j.verdict().decision() == Decision.DENY).findFirst().orElseThrow();
            assertEquals("limits.maxCordonedShareOfPool", refused.verdict().rule());
            String allowedNode = all.stream().filter(j -> j.verdict().decision() == Decision.ALLOW).findFirst().orElseThrow().proposal().target();
            assertTrue(refused.verdict().reasons().get(0).contains(allowedNode), "the refusal names the planned cordon: " + refused.verdict());
        } finally {
            threads.shutdownNow();
        }
        List<ActionRecord> planned = replicas.get(0).withStatus(ActionStatus.PLANNED);
        assertEquals(1, planned.size(), "one cordon recorded PLANNED: " + planned);
        assertEquals(0, replicas.get(0).withStatus(ActionStatus.SKIPPED).size(), "a refusal is no action row");
        for (String n : nodes) {
            Node now = world.client().nodes().withName(n).get();
            assertTrue(!Boolean.TRUE.equals(now.getSpec().getUnschedulable()), "planned, not applied: " + n);
        }
    }
}
