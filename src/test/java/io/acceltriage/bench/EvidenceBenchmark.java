package io.acceltriage.bench;

import io.acceltriage.diagnosis.Classifier;
import io.acceltriage.diagnosis.ClusterSignals;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.XidCatalogue;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.EvidenceGatherer;
import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.evidence.SignatureCatalogue;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.incident.Subject;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SimulatedCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How long one triage (evidence gathering and classification) takes when every evidence source is
 * slow: 200 ms added to each Kubernetes API request (cluster state, events and logs all go through it)
 * and to each metrics read. Reported as a ratio to the 200 ms, beside the same triage with no delay.
 * A figure, not a pass/fail: run it on purpose with
 * {@code ./mvnw -B verify -Pbenchmark} (with the load benchmark); it prints the figures and
 * writes them to {@code target/benchmarks/evidence.txt}.
 */
@Tag("benchmark")
class EvidenceBenchmark {

    private static final long DELAY_MS = 200;
    private static final int RUNS = 5;

    @Test
    void triageTimeWithEveryEvidenceSourceDelayed() throws Exception {
        List<String> report = new ArrayList<>();
        report.add("evidence benchmark: " + DELAY_MS + " ms added to each API request and each metrics read; median of " + RUNS + " runs");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (SimulatedCluster world = SimulatedCluster.start()) {
            world.inject(Fault.xid("gpu-h100-07", 3, 79));
            world.inject(Fault.onPod("cuda-oom", "research/jupyter-alice-0"));
            AtomicInteger requests = new AtomicInteger();
            KubernetesClient delayed = new KubernetesClientBuilder().withConfig(world.client().getConfiguration())
                    .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("benchmark-delay", new Interceptor() {
                        @Override
                        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                            requests.incrementAndGet();
                            sleep(DELAY_MS);
                        }
                    })).build();
            MetricsSource exporters = node -> {
                if (!world.hasExporter(node)) throw new MetricsSource.EvidenceUnavailable("no exporter on " + node);
                return new NodeSamples(ExpositionParser.parse(world.exporterText(node)), List.of());
            };
            MetricsSource slowExporters = node -> {
                sleep(DELAY_MS);
                return exporters.read(node);
            };
            Toolsets toolsets = Toolsets.load("tools");
            SignatureCatalogue signatures = SignatureCatalogue.load();
            NodeAgents agents = NodeAgents.load();
            Classifier classifier = new Classifier(XidCatalogue.load(), toolsets, signatures, ClusterSignals.load());
            EvidenceGatherer fast = new EvidenceGatherer(world.client(), exporters, toolsets, signatures, agents, pool);
            EvidenceGatherer slow = new EvidenceGatherer(delayed, slowExporters, toolsets, signatures, agents, pool);

            for (Subject subject : List.of(Subject.node("gpu-h100-07"), Subject.pod("research", "jupyter-alice-0"))) {
                for (int i = 0; i < 3; i++) triage(fast, classifier, subject); // warm up
                long base = median(fast, classifier, subject);
                requests.set(0);
                long withDelay = median(slow, classifier, subject);
                int perTriage = requests.get() / RUNS;
                Diagnosis d = classifier.classify(slow.gather(subject, Instant.now()));
                report.add(String.format("%-32s no delay %5d ms | delayed %5d ms = %.2f x %d ms | %d API requests per triage "
                        + "(%.1f x if read one after another) | %s", subject.key(), base, withDelay, withDelay / (double) DELAY_MS,
                        DELAY_MS, perTriage, perTriage + 1.0, d.family().wireName()));
            }
            // The same with the watched cluster view over the delayed client (what the service runs): only what cannot be
            // watched (the exporter scrape, the container logs, the DRA slices) pays the delay, in one parallel round.
            try (io.acceltriage.cluster.WatchedCluster view = io.acceltriage.cluster.WatchedCluster.start(delayed, null,
                    io.acceltriage.cluster.WatchedCluster.Settings.DEFAULT)) {
                long until = System.nanoTime() + 120_000_000_000L;
                while (!view.synced()) {
                    if (System.nanoTime() > until) throw new AssertionError("the view did not sync within 2 minutes");
                    Thread.sleep(50);
                }
                EvidenceGatherer watched = new EvidenceGatherer(view, slowExporters, toolsets, signatures, agents, pool);
                for (Subject subject : List.of(Subject.node("gpu-h100-07"), Subject.pod("research", "jupyter-alice-0"))) {
                    for (int i = 0; i < 3; i++) triage(watched, classifier, subject); // warm up
                    requests.set(0);
                    long withDelay = median(watched, classifier, subject);
                    int perTriage = requests.get() / RUNS;
                    Diagnosis d = classifier.classify(watched.gather(subject, Instant.now()));
                    report.add(String.format("%-32s watched view, delayed %5d ms = %.2f x %d ms | %d API requests per triage | %s",
                            subject.key(), withDelay, withDelay / (double) DELAY_MS, DELAY_MS, perTriage, d.family().wireName()));
                }
            }
            delayed.close();
        } finally {
            pool.shutdownNow();
        }
        report.forEach(System.out::println);
        Path out = Path.of("target/benchmarks/evidence.txt");
        Files.createDirectories(out.getParent());
        Files.write(out, report);
    }

    private static long median(EvidenceGatherer gatherer, Classifier classifier, Subject subject) {
        long[] t = new long[RUNS];
        for (int i = 0; i < RUNS; i++) t[i] = triage(gatherer, classifier, subject);
        java.util.Arrays.sort(t);
        return t[RUNS / 2];
    }

    private static long triage(EvidenceGatherer gatherer, Classifier classifier, Subject subject) {
        long start = System.nanoTime();
        EvidenceBundle bundle = gatherer.gather(subject, Instant.now());
        classifier.classify(bundle);
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
