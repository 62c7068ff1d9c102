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

    /**
     * The pod log endpoint asked directly, one request: fabric8's log reader first waits for the pod to be ready or
     * terminated, which costs a list request before every log even with no wait, and the containers worth reading
     * are the ones that are not ready anyway.
     */
    static String logPath(LogTarget target) {
        return "/api/v1/namespaces/" + enc(target.namespace()) + "/pods/" + enc(target.pod()) + "/log?container=" + enc(target.container())
                + "&tailLines=" + TAIL_LINES + (target.previous() ? "&previous=true" : "&limitBytes=" + MAX_BYTES);
    }

    private static String enc(String part) {
        return java.net.URLEncoder.encode(part, java.nio.charset.StandardCharsets.UTF_8);
    }

    Result collect(LogTarget target) {
        String text;
        try {
            text = client.raw(logPath(target), "GET", null);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 400 || e.getCode() == 404) {
                // No previous instance, or the container has not started: nothing to read, not a failure.
                return new Result(List.of(), List.of(), 0);
            }
            return new Result(List.of(), List.of(new Gap(Source.LOGS, "log of " + name(target) + " unreadable: "
                    + ClusterCollector.apiFailure(e))), 0);
        }
        if (text == null) return new Result(List.of(), List.of(), 0); // gone meanwhile: nothing to read
        if (text.isEmpty()) {
            return new Result(List.of(), List.of(), 1);
        }
        if (text.length() > MAX_BYTES) {
            text = text.substring(text.length() - MAX_BYTES);
        }
        List<Observation> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Set<String> armed = new HashSet<>();
        for (String raw : text.split("\n")) {
            if (out.size() >= MAX_MATCHES_PER_LOG) break;
            String line = raw.strip();
            if (line.isEmpty()) continue;
            for (SignatureCatalogue.Signature s : signatures.match(line, target.role(), armed)) {
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
