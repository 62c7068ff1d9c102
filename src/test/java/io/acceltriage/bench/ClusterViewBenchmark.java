package io.acceltriage.bench;

import io.acceltriage.cluster.WatchedCluster;
import io.acceltriage.sandbox.SimulatedCluster;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The heap the watched cluster view retains: the sandbox seeded with more nodes and pods, the view
 * started over it in this JVM, the heap used after a full collection before and after its first sync.
 * Figures, not pass/fail; written to target/benchmarks/cluster-view.txt. The default scale is the
 * issue's 5,000 nodes and 100,000 pods (seeded in one pass: fabric8's CRUD mock finds an object by
 * scanning all it holds, so seeding them one at a time was quadratic and took hours).
 * Run: {@code ./mvnw -B -o test -Dtest=ClusterViewBenchmark -Dacceltriage.benchmark=true -Dsurefire.excludedGroups=}.
 */
@Tag("benchmark")
class ClusterViewBenchmark {

    static final int NODES = Integer.getInteger("acceltriage.bench.view.nodes", 5_000);
    static final int PODS = Integer.getInteger("acceltriage.bench.view.pods", 100_000);

    @Test
    void memoryOfTheViewAtScale() throws Exception {
        List<String> report = new ArrayList<>();
        try (SimulatedCluster world = SimulatedCluster.start()) {
            long seeding = System.nanoTime();
            world.seedAtScale(NODES, PODS);
            report.add(String.format(Locale.ROOT, "seeded %d nodes and %d pods more in %.1f s", NODES, PODS, (System.nanoTime() - seeding) / 1e9));
            long before = retained();
            long start = System.nanoTime();
            WatchedCluster view = WatchedCluster.start(world.client(), null, WatchedCluster.Settings.DEFAULT);
            while (!view.synced()) {
                if (System.nanoTime() - start > 600e9) throw new AssertionError("the view did not sync within 10 min");
                Thread.sleep(100);
            }
            double syncSeconds = (System.nanoTime() - start) / 1e9;
            long after = retained();
            var sizes = view.sizes();
            report.add(String.format(Locale.ROOT, "cluster view at %d nodes, %d pods (%s): first sync %.1f s, heap retained %.0f MiB"
                    + " (%.1f KiB per pod or node)", sizes.get("nodes"), sizes.get("pods"), sizes, syncSeconds,
                    (after - before) / 1048576.0, (after - before) / 1024.0 / (sizes.get("nodes") + sizes.get("pods"))));
            view.close();
        }
        report.forEach(System.out::println);
        Path out = Path.of("target/benchmarks/cluster-view.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, String.join("\n", report) + "\n");
    }

    /** Heap in use after full collections, settled. */
    private static long retained() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(300);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
