package io.acceltriage.evidence;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the tail of container logs and keeps the lines that match a known signature. Bounded: a
 * tail of lines, a cap on bytes and on the lines kept, so a chatty workload cannot flood an incident.
 */
final class LogCollector {

    static final int TAIL_LINES = 300;
    static final int MAX_BYTES = 256 * 1024;
    static final int MAX_LINE = 400;
    static final int MAX_MATCHES_PER_LOG = 6;

    private final KubernetesClient client;
    private final SignatureCatalogue signatures;

    LogCollector(KubernetesClient client, SignatureCatalogue signatures) {
        this.client = client;
        this.signatures = signatures;
    }

    record Result(List<Observation> observations, List<Gap> gaps, int logsRead) {}

    Result collect(LogTarget target) {
        String text;
        try {
            // No waiting for readiness: the containers worth reading are the ones that are not ready.
            var container = client.pods().inNamespace(target.namespace()).withName(target.pod()).inContainer(target.container())
                    .withReadyWaitTimeout(0);
            text = target.previous() ? container.terminated().tailingLines(TAIL_LINES).getLog()
                    : container.limitBytes(MAX_BYTES).tailingLines(TAIL_LINES).getLog();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 400 || e.getCode() == 404) {
                // No previous instance, or the container has not started: nothing to read, not a failure.
                return new Result(List.of(), List.of(), 0);
            }
            return new Result(List.of(), List.of(new Gap(Source.LOGS, "log of " + name(target) + " unreadable: "
                    + ClusterCollector.apiFailure(e))), 0);
        }
        if (text == null || text.isEmpty()) {
            return new Result(List.of(), List.of(), 1);
        }
        if (text.length() > MAX_BYTES) {
            text = text.substring(text.length() - MAX_BYTES);
        }
        List<Observation> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String raw : text.split("\n")) {
            if (out.size() >= MAX_MATCHES_PER_LOG) break;
            String line = raw.strip();
            if (line.isEmpty()) continue;
            for (SignatureCatalogue.Signature s : signatures.match(line, target.role())) {
                if (seen.add(s.id())) {
                    String kept = line.length() > MAX_LINE ? line.substring(0, MAX_LINE) + "…" : line;
                    out.add(new Observation(Source.LOGS, name(target) + " [" + s.id() + "] " + kept,
                            new Facts.LogMatch(target.namespace(), target.pod(), target.container(), target.previous(),
                                    target.role(), s.id(), kept)));
                }
            }
        }
        return new Result(out, List.of(), 1);
    }

    private static String name(LogTarget t) {
        return t.namespace() + "/" + t.pod() + "/" + t.container() + (t.previous() ? " (previous)" : "");
    }
}
