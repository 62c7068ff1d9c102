package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.ClusterConfig;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client to a real cluster is bounded: a hung or failing API server cannot hold the single triage worker. */
class ClusterClientBoundsTest {

    KubernetesMockServer server;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
    }

    @AfterEach
    void stop() {
        server.destroy();
    }

    KubernetesClient client(Duration timeout, int retries) {
        Config base = server.createClient().getConfiguration();
        return new KubernetesClientBuilder().withConfig(Wiring.bounded(base, settings(timeout, retries))).build();
    }

    @Test
    void aHungApiServerIsGivenUpOnAfterTheRequestTimeout() {
        server.expect().get().delay(30, TimeUnit.SECONDS).withPath("/api/v1/nodes/n1")
                .andReturn(200, new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).always();
        KubernetesClient client = client(Duration.ofMillis(400), 2);
        long began = System.nanoTime();
        KubernetesClientException e = assertThrows(KubernetesClientException.class, () -> client.nodes().withName("n1").get());
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        assertTrue(e.getMessage().contains("timeout period of 400ms"), e.getMessage());
        assertTrue(tookMs < 5_000, "gave up after " + tookMs + " ms, not the 30 s the server holds the answer");
    }

    @Test
    void aServerErrorIsRetriedOnlyTheConfiguredNumberOfTimes() {
        server.expect().get().withPath("/api/v1/nodes/n1").andReturn(500, "etcd unavailable").always();
        KubernetesClient client = client(Duration.ofSeconds(5), 2);
        KubernetesClientException e = assertThrows(KubernetesClientException.class, () -> client.nodes().withName("n1").get());
        assertEquals(500, e.getCode());
        assertEquals(3, server.getRequestCount(), "one request and two retries, not fabric8's default ten");
    }

    @Test
    void theDefaultsAreTenSecondsAndTwoRetries() {
        Config c = Wiring.bounded(Config.empty(), settings(Duration.ofSeconds(10), 2));
        assertEquals(10_000, c.getRequestTimeout());
        assertEquals(2, c.getRequestRetryBackoffLimit());
    }

    private static ClusterConfig settings(Duration timeout, int retries) {
        return new ClusterConfig() {
            public Mode mode() { return Mode.KUBECONFIG; }
            public java.util.Optional<Integer> exporterPort() { return java.util.Optional.empty(); }
            public Duration requestTimeout() { return timeout; }
            public int requestRetries() { return retries; }
        };
    }
}
