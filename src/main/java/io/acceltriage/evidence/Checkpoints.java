package io.acceltriage.evidence;

import io.acceltriage.cluster.ClusterReads;
import io.acceltriage.cluster.Owners;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * When each training gang of a triage last checkpointed: what a restart of the gang would throw away.
 * Read first from the annotation the trainer writes on the gang's top object (an RFC 3339 time: the
 * annotation survives a restart of the trainer and needs no metrics pipeline), else from a tool of
 * {@code tools/} that answers seconds since the last checkpoint for the gang's namespace. Both are the
 * trainer's word (tenant evidence): they may only delay the trainer's own restart and size its loss.
 */
public final class Checkpoints {

    /** Where to read it: the annotation key, and the tool's name (null: the annotation only). */
    record Where(String annotation, String tool) {}

    private final ClusterReads reads;
    private final MetricsSource metrics;
    private final Toolsets toolsets;
    private final List<String> acceleratorResources;

    Checkpoints(ClusterReads reads, MetricsSource metrics, Toolsets toolsets, List<String> acceleratorResources) {
        this.reads = reads;
        this.metrics = metrics;
        this.toolsets = toolsets;
        this.acceleratorResources = acceleratorResources;
    }

    /** One observation per gang workload whose last checkpoint could be read; a gang that reports none gets none. */
    List<Observation> of(List<Workload> workloads, Where where, Instant at) {
        List<Observation> out = new ArrayList<>();
        Owners owners = new Owners(reads);
        for (Workload w : workloads) {
            if (!w.gang()) continue;
            Owners.Top top = owners.byName(w.namespace(), w.name());
            HasMetadata object = top == null ? null : top.object();
            int gpus = gpusOf(w, owners);
            Optional<Facts.GangCheckpoint> c = annotated(w.namespace(), w.name(), w.kind(), object, where.annotation(), gpus, at)
                    .or(() -> measured(w.namespace(), w.name(), w.kind(), where.tool(), gpus, at));
            c.ifPresent(f -> out.add(new Observation(Source.CLUSTER, w.kind() + " " + w.ref() + " last checkpointed "
                    + (f.at() == null ? "" : "at " + f.at() + ", ") + f.secondsSince() + " s before the alert (" + f.source() + "); "
                    + f.gpus() + " GPUs", f)));
        }
        return out;
    }

    /** One gang's last checkpoint, read as the evidence reads it: when, and where it was read ("annotation k", "tool t"). */
    public record Last(Instant at, String source) {}

    /** A reader of single gangs' last checkpoints, for the restart that waits for the next one. */
    public static Checkpoints reading(ClusterReads reads, MetricsSource metrics, Toolsets toolsets) {
        return new Checkpoints(reads, metrics, toolsets, List.of());
    }

    /**
     * The last checkpoint of the gang {@code namespace/name} at {@code now}, read the way {@link #of} reads it: the
     * annotation {@code annotation} on its top object, else the tool {@code tool} (seconds since, so the time is
     * {@code now} minus them). Empty when neither answers.
     */
    public Optional<Last> last(String namespace, String name, String annotation, String tool, Instant now) {
        Owners.Top top = new Owners(reads).byName(namespace, name);
        HasMetadata object = top == null ? null : top.object();
        String kind = top == null ? null : top.kind();
        return annotated(namespace, name, kind, object, annotation, 0, now)
                .or(() -> measured(namespace, name, kind, tool, 0, now))
                .map(c -> new Last(c.at() != null ? c.at() : now.minusSeconds(c.secondsSince()), c.source()));
    }

    private Optional<Facts.GangCheckpoint> annotated(String namespace, String name, String kind, HasMetadata object, String key,
            int gpus, Instant at) {
        Map<String, String> annotations = object == null ? null : object.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(key);
        Instant last = parse(value);
        if (last == null) return Optional.empty();
        long since = Math.max(0, Duration.between(last, at).getSeconds());
        return Optional.of(new Facts.GangCheckpoint(namespace, name, kind, last, since, gpus, "annotation " + key));
    }

    /**
     * The tool's seconds since the last checkpoint, evaluated at {@code at} (Prometheus {@code time=}): as of the alert for
     * the evidence, as the annotation is read, so "s before the alert" holds for both; as of now for a wait.
     */
    private Optional<Facts.GangCheckpoint> measured(String namespace, String name, String kind, String toolName, int gpus,
            Instant at) {
        if (toolName == null || toolsets == null || !(metrics instanceof PrometheusSource prometheus)) return Optional.empty();
        Optional<Toolset.Tool> tool = toolsets.all().stream().flatMap(ts -> ts.tools().stream())
                .filter(t -> t.name().equals(toolName)).findFirst();
        if (tool.isEmpty()) return Optional.empty();
        String promql = tool.get().query().replaceAll("\\{\\{\\s*namespace\\s*}}", namespace);
        try {
            // Named: the tool's answer is an aggregate without a metric name, which the node reader refuses as malformed.
            List<Sample> samples = prometheus.queryAt(promql, at, toolName + " for " + namespace);
            if (samples.isEmpty() || Double.isNaN(samples.get(0).value())) return Optional.empty();
            long since = Math.max(0, Math.round(samples.get(0).value()));
            return Optional.of(new Facts.GangCheckpoint(namespace, name, kind, null, since, gpus, "tool " + toolName));
        } catch (MetricsSource.EvidenceUnavailable e) {
            return Optional.empty();
        }
    }

    /** A trainer's RFC 3339 time; anything else (a typo, a tenant's nonsense) is no checkpoint. */
    public static Instant parse(String value) {
        if (value == null || value.isBlank() || value.length() > 64) return null;
        try {
            return OffsetDateTime.parse(value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** The accelerators the gang's running pods hold: what sits idle from the checkpoint to the restart. */
    private int gpusOf(Workload w, Owners owners) {
        int gpus = 0;
        Map<String, Owners.Top> tops = new java.util.HashMap<>();
        for (Pod p : reads.podsIn(w.namespace())) {
            if (p.getSpec() == null || !w.nodes().contains(p.getSpec().getNodeName()) || p.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            var ref = Owners.controllerOf(p);
            if (ref == null) continue;
            Owners.Top top = tops.computeIfAbsent(ref.getKind() + "/" + ref.getName(), k -> owners.topOf(p));
            if (top == null || !top.name().equals(w.name()) || !top.kind().equals(w.kind())) continue;
            for (var c : p.getSpec().getContainers()) {
                Map<String, Quantity> limits = c.getResources() == null ? null : c.getResources().getLimits();
                if (limits == null) continue;
                for (String r : acceleratorResources) {
                    Quantity q = limits.get(r);
                    if (q != null) gpus += q.getNumericalAmount().intValue();
                }
            }
        }
        return gpus;
    }
}
