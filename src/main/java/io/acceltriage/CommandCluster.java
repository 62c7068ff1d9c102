package io.acceltriage;

import io.acceltriage.config.ClusterConfig;
import io.acceltriage.evidence.ExporterScrape;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.sandbox.SandboxKubeconfig;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The cluster a command-line tool reads from outside the service, through a kubeconfig file: a real
 * cluster's, or the one a running sandbox writes into its data folder (whose simulated exporters the
 * service serves, named in the file). Read-only use only: the tools act on nothing.
 */
record CommandCluster(Path kubeconfig, String server, KubernetesClient client, MetricsSource metrics) implements AutoCloseable {

    /** {@code --kubeconfig}, else {@code KUBECONFIG} (its first file), else {@code ~/.kube/config}; empty when none is there. */
    static Optional<Path> kubeconfig(Path option) {
        if (option != null) return Optional.of(option);
        String env = System.getenv("KUBECONFIG");
        if (env != null && !env.isBlank()) return Optional.of(Path.of(env.split(java.io.File.pathSeparator)[0]));
        Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
        return Files.isRegularFile(home) ? Optional.of(home) : Optional.empty();
    }

    static CommandCluster open(Path file, ClusterConfig config) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Config base = Config.fromKubeconfig(null, text, file.toAbsolutePath().toString());
        KubernetesClient client = new KubernetesClientBuilder().withConfig(Wiring.bounded(base, config)).build();
        MetricsSource metrics = SandboxKubeconfig.exporters(text)
                .<MetricsSource>map(url -> new ExporterScrape(node -> Optional.of(URI.create(url.replace("{node}", node)))))
                .orElseGet(() -> Wiring.exportersOnNodes(io.acceltriage.cluster.ClusterReads.direct(client), config.exporterPort()));
        return new CommandCluster(file, base.getMasterUrl(), client, metrics);
    }

    /** Null when the API server answers; else what to tell the operator. */
    String unreachable() {
        try {
            client.nodes().withName("acceltriage-reachability-probe").get();
            return null;
        } catch (RuntimeException e) {
            return "cannot reach the Kubernetes API at " + server + " (from " + kubeconfig + "): " + rootMessage(e)
                    + "; is the cluster (or the service whose sandbox wrote the file) running?";
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    @Override
    public void close() {
        client.close();
    }
}
