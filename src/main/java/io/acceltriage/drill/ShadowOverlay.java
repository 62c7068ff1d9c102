package io.acceltriage.drill;

import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.EvidenceOverlay;
import io.acceltriage.evidence.Fact;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Source;
import io.acceltriage.incident.Alert;
import io.acceltriage.policy.ForcedDryRun;
import io.acceltriage.sandbox.Fault;
import jakarta.enterprise.context.ApplicationScoped;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A shadow drill's fault laid over its own incident's evidence, so a drill against a healthy real
 * cluster times every stage: the readings the fault would have produced (an XID, a double-bit ECC error,
 * a device plugin advertising no GPUs) are added as {@link Source#DRILL} items whose summary says they
 * are synthetic; the page, the stored assessment and its {@code evidence.collected} audit record show
 * them as such. Nothing can change: the incident is forced into dry run ({@link ForcedDryRun}).
 *
 * <p>Only the drill runner's own delivery opens an overlay: while a shadow drill runs, its alert carries
 * {@link #RUN_LABEL} with a random token this process registered ({@link #open}) and forgets when the
 * drill ends ({@link #close}). An alert from Alertmanager that carries the drill's marker labels, even
 * copied from an earlier run's audit trail, names no open run and gets no overlay (its incident still
 * runs dry, as any alert with the marker does).
 */
@ApplicationScoped
public class ShadowOverlay implements EvidenceOverlay {

    /** The label of a shadow drill's alert naming its run: a token only this process knows while the drill runs. */
    public static final String RUN_LABEL = "acceltriage_drill_run";

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A running shadow drill: its name and the faults it stands for. */
    record Run(String drill, List<Fault> faults) {}

    private final Map<String, Run> open = new ConcurrentHashMap<>();

    /** Registers a run of {@code drill} standing for {@code faults}; returns the token its alert carries. */
    String open(String drill, List<Fault> faults) {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        String token = HexFormat.of().formatHex(b);
        open.put(token, new Run(drill, List.copyOf(faults)));
        return token;
    }

    /** The drill ended: its token no longer opens an overlay. */
    void close(String token) {
        open.remove(token);
    }

    @Override
    public EvidenceBundle apply(EvidenceBundle gathered, List<Alert> alerts) {
        Optional<Run> run = runOf(alerts);
        if (run.isEmpty() || gathered.node() == null) return gathered;
        List<Evidence> items = new ArrayList<>(gathered.items());
        List<String> laid = new ArrayList<>();
        for (Fault f : run.get().faults()) {
            if (!gathered.node().equals(f.node())) continue;
            Optional<Fact> fact = reading(f, gathered);
            if (fact.isEmpty()) continue;
            String what = describe(f);
            items.add(new Evidence("E" + (items.size() + 1), Source.DRILL, "drill " + run.get().drill() + " (synthetic, not read from the"
                    + " cluster): " + what, fact.get()));
            laid.add(what);
        }
        if (laid.isEmpty()) return gathered;
        List<String> consulted = new ArrayList<>(gathered.consulted());
        consulted.add("shadow drill " + run.get().drill() + ": its fault laid over the evidence as a synthetic reading (" + String.join("; ", laid)
                + "); the incident runs in dry run");
        return new EvidenceBundle(gathered.subject(), gathered.at(), gathered.node(), gathered.pool(), gathered.nodeCordoned(),
                List.copyOf(items), gathered.pods(), gathered.workloads(), gathered.gaps(), List.copyOf(consulted));
    }

    /** The open run one of the alerts names, when that alert also carries the drill's marker (so the incident runs dry). */
    Optional<Run> runOf(List<Alert> alerts) {
        for (Alert a : alerts) {
            String token = a.labels().get(RUN_LABEL);
            String drill = a.labels().get(ForcedDryRun.DRILL_LABEL);
            if (token == null || drill == null) continue;
            Run r = open.get(token);
            if (r != null && r.drill().equals(drill) && ForcedDryRun.of(List.of(a.labels())).isPresent()) return Optional.of(r);
        }
        return Optional.empty();
    }

    /** What the fault would show: the kinds with a device reading; a kind without one is not overlaid (its drill says so). */
    static Optional<Fact> reading(Fault f, EvidenceBundle gathered) {
        String gpu = String.valueOf(f.gpu() == null ? 0 : f.gpu());
        return switch (f.kind()) {
            case "xid" -> Optional.of(new Facts.MetricReading(f.node(), gpu, null, null, null, "DCGM_FI_DEV_XID_ERRORS", f.xid(), 0.0,
                    String.valueOf(f.xid())));
            case "dbe-ecc" -> Optional.of(new Facts.MetricReading(f.node(), gpu, null, null, null, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, 0.0,
                    null));
            case "device-plugin-crash" -> gathered.of(Facts.AcceleratorCapacity.class).stream().map(Evidence::fact)
                    .map(Facts.AcceleratorCapacity.class::cast).filter(c -> f.node().equals(c.node())).findFirst()
                    .map(c -> new Facts.AcceleratorCapacity(c.node(), c.pool(), c.resource(), c.capacity(), 0, c.expected()));
            default -> Optional.empty();
        };
    }

    static String describe(Fault f) {
        return switch (f.kind()) {
            case "xid" -> "XID " + f.xid() + " on " + f.node() + " GPU " + (f.gpu() == null ? 0 : f.gpu());
            case "dbe-ecc" -> "a double-bit ECC error on " + f.node() + " GPU " + (f.gpu() == null ? 0 : f.gpu());
            default -> "the device plugin on " + f.node() + " advertising no GPUs";
        };
    }
}
