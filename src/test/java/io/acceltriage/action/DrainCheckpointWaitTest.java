package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.SimulatedCluster;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The wait of a drain proposed to empty a node at the next checkpoint: it waits for every gang with a member on
 * the node that reports its checkpoints (the annotation of {@code policies/training.yaml}), found from the member
 * pods through their owners, and for nothing else on the node: a gang that reports none, a plain pod, a gang on
 * another node. The policy's {@code checkpoints.maxWait} (1 h) ends the wait whatever happens.
 */
class DrainCheckpointWaitTest {

    private static final String NS = "drain-wait";
    private static final String NODE = "gpu-swap-01";
    private static final String ANNOTATION = "acceltriage.io/last-checkpoint";

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static RestartGroup restarts;

    @BeforeAll
    static void start() {
        cluster = SimulatedCluster.start();
        client = cluster.client();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // Reports its checkpoints, one member here and one elsewhere.
        StatefulSet trainer = gang("trainer", now.minusSeconds(600).toString());
        member(trainer, "trainer-0", NODE);
        member(trainer, "trainer-1", "gpu-swap-02");
        // A gang that reports none: nothing would ever end a wait for it.
        member(gang("quiet", null), "quiet-0", NODE);
        // A gang that reports checkpoints but runs on another node only: not the drain's business.
        member(gang("elsewhere", now.minusSeconds(900).toString()), "elsewhere-0", "gpu-swap-02");
        // A pod of no workload.
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("notebook").withNamespace(NS).endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName("nb").withImage("jupyter:1").endContainer().endSpec()
                .build()).create();
        Policy training = Policy.load("policies/training.yaml");
        restarts = new RestartGroup(client, MitigationsTest.FAST, () -> training, null);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
    }

    @Test
    void aDrainWaitsOnlyForTheCheckpointingGangsWithAMemberOnTheNodeThenRuns() {
        Instant proposed = Instant.now().minusSeconds(60);
        RestartGroup.CheckpointWait before = restarts.nodeCheckpointWait(NODE, proposed, Instant.now());
        assertTrue(before.waiting(), before.why());
        assertTrue(before.why().contains(NS + "/trainer") && before.why().contains("annotation " + ANNOTATION), before.why());
        assertFalse(before.why().contains("quiet") || before.why().contains("elsewhere"), before.why());

        String last = client.apps().statefulSets().inNamespace(NS).withName("trainer").get().getMetadata().getAnnotations().get(ANNOTATION);
        try {
            annotate("trainer", Instant.now().minusSeconds(5).truncatedTo(ChronoUnit.SECONDS).toString());
            RestartGroup.CheckpointWait after = restarts.nodeCheckpointWait(NODE, proposed, Instant.now());
            assertFalse(after.waiting(), after.why());
            assertTrue(after.why().contains(NS + "/trainer checkpointed at") && after.why().contains("after the drain was proposed"),
                    after.why());
        } finally {
            annotate("trainer", last);
        }
    }

    @Test
    void aDrainStopsWaitingWhenThePolicysLongestWaitHasPassedAndSaysWhy() {
        Instant proposed = Instant.now().minusSeconds(5);
        RestartGroup.CheckpointWait wait = restarts.nodeCheckpointWait(NODE, proposed, proposed.plus(61, ChronoUnit.MINUTES));
        assertFalse(wait.waiting(), wait.why());
        assertTrue(wait.why().contains("checkpoints.maxWait of 60 min") && wait.why().contains("draining " + NODE + " anyway"),
                wait.why());
    }

    @Test
    void aNodeWithoutACheckpointingGangIsDrainedWithoutWaiting() {
        RestartGroup.CheckpointWait wait = restarts.nodeCheckpointWait("gpu-swap-03", Instant.now().minusSeconds(60), Instant.now());
        assertFalse(wait.waiting(), wait.why());
        assertTrue(wait.why().contains("no gang that reports checkpoints has a member on gpu-swap-03"), wait.why());
    }

    private static StatefulSet gang(String name, String lastCheckpoint) {
        return client.apps().statefulSets().inNamespace(NS).resource(io.acceltriage.testing.Trainers.statefulSet(NS, name,
                lastCheckpoint == null ? Map.of() : Map.of(ANNOTATION, lastCheckpoint))).create();
    }

    private static void member(StatefulSet owner, String pod, String node) {
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(NS)
                .withLabels(Map.of("app", owner.getMetadata().getName()))
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("StatefulSet")
                        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true).build())
                .endMetadata().withNewSpec().withNodeName(node).addNewContainer().withName("train").withImage("trainer:1").endContainer()
                .endSpec().build()).create();
    }

    private static void annotate(String name, String value) {
        client.apps().statefulSets().inNamespace(NS).withName(name).edit(s -> new StatefulSetBuilder(s).editMetadata()
                .addToAnnotations(ANNOTATION, value).endMetadata().build());
    }
}
