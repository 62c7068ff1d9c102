package io.acceltriage.metrics;

import io.acceltriage.diagnosis.Family;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.Source;
import io.acceltriage.incident.AlertStatus;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * acceltriage's own metrics, served on /metrics. The names are a contract: the Grafana dashboard in
 * deploy/grafana/ and operators' alerts query them. Stages call the recording methods; nothing else
 * touches the registry.
 *
 * <p>Label values known in advance are initialised to zero, so rate() and increase() see the first
 * event instead of a series appearing out of nowhere.
 */
@ApplicationScoped
public class ServiceMetrics {

    /** Outcomes of a person's decision on an action that waited for approval. */
    public static final List<String> APPROVAL_OUTCOMES = List.of("approved", "rejected", "expired");

    private final PrometheusRegistry registry = new PrometheusRegistry();

    private final Counter alertsReceived = Counter.builder().name("acceltriage_alerts_received_total")
            .help("Alerts received on the Alertmanager webhook, re-deliveries included.").labelNames("status").register(registry);
    private final Counter incidents = Counter.builder().name("acceltriage_incidents_total")
            .help("Incidents by the failure family of their first diagnosis.").labelNames("family").register(registry);
    private final Histogram triageDuration = Histogram.builder().name("acceltriage_triage_duration_seconds")
            .help("Time from the start of a triage (evidence, diagnosis, verdicts) to the actions done and the incident's state set.")
            .classicOnly().classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60).register(registry);
    private final Histogram decisionLatency = Histogram.builder().name("acceltriage_decision_latency_seconds")
            .help("Time from the first alert of an incident being received to its first decision (diagnosis and verdicts stored).")
            .classicOnly().classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60).register(registry);
    private final Histogram mitigation = Histogram.builder().name("acceltriage_mitigation_seconds")
            .help("Time from the first alert of an incident being received to its first mitigation that ran and verified,"
                    + " by failure family (time to mitigate; GET /api/v1/reliability has every stage).")
            .labelNames("family").classicOnly().classicUpperBounds(1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600).register(registry);
    private final Counter actions = Counter.builder().name("acceltriage_actions_total")
            .help("Proposed mitigations by kind and the policy's verdict (allow, approve, deny).")
            .labelNames("kind", "verdict").register(registry);
    private final Counter approvals = Counter.builder().name("acceltriage_approvals_total")
            .help("Decisions of people on actions awaiting approval.").labelNames("outcome").register(registry);
    private final Gauge circuitBreaker = Gauge.builder().name("acceltriage_circuit_breaker_tripped")
            .help("1 while the circuit breaker is tripped (no automatic actions until a person resets it), else 0.")
            .register(registry);
    private final Counter modelCalls = Counter.builder().name("acceltriage_model_calls_total")
            .help("Calls to the language model by model and outcome.").labelNames("model", "outcome").register(registry);
    private final Counter modelTokens = Counter.builder().name("acceltriage_model_tokens_total")
            .help("Tokens exchanged with the language model by model and direction (input, output).")
            .labelNames("model", "direction").register(registry);
    private final Counter objectiveBreaches = Counter.builder().name("acceltriage_objective_breaches_total")
            .help("Incidents that missed a recovery objective of the policy, by objective and the incident's family and pool"
                    + " (counted once per incident and objective; GET /api/v1/reliability has each check).")
            .labelNames("objective", "family", "pool").register(registry);
    private final Counter evidenceErrors = Counter.builder().name("acceltriage_evidence_errors_total")
            .help("Evidence that could not be collected (gaps), by source.").labelNames("source").register(registry);

    public ServiceMetrics() {
        for (AlertStatus s : AlertStatus.values()) alertsReceived.labelValues(s.wireName());
        for (Family f : Family.values()) {
            incidents.labelValues(f.wireName());
            mitigation.labelValues(f.wireName());
        }
        for (ActionKind k : ActionKind.values()) {
            for (Decision d : Decision.values()) actions.labelValues(k.wireName(), d.wireName());
        }
        APPROVAL_OUTCOMES.forEach(approvals::labelValues);
        for (Source s : Source.values()) evidenceErrors.labelValues(label(s));
        circuitBreaker.set(0);
    }

    PrometheusRegistry registry() {
        return registry;
    }

    public void alertReceived(AlertStatus status) {
        alertsReceived.labelValues(status.wireName()).inc();
    }

    /** An incident got its first diagnosis. */
    public void incidentClassified(Family family) {
        incidents.labelValues(family.wireName()).inc();
    }

    public void triaged(Duration took) {
        triageDuration.observe(took.toNanos() / 1e9);
    }

    /** An incident's first decision was stored this long after its first alert arrived. */
    public void decided(Duration sinceFirstAlert) {
        decisionLatency.observe(Math.max(0, sinceFirstAlert.toNanos()) / 1e9);
    }

    /**
     * Serves the inbox backlog (alerts stored, not yet filed under an incident) on every scrape: the
     * figure that shows a storm outpacing triage. No sample while the store cannot answer.
     */
    public void mitigated(Family family, Duration sinceFirstAlert) {
        mitigation.labelValues(family.wireName()).observe(Math.max(0, sinceFirstAlert.toNanos()) / 1e9);
    }

    /** An incident missed an objective; {@code pool} is empty when its pool is unknown. */
    public void objectiveBreached(String objective, String family, String pool) {
        objectiveBreaches.labelValues(objective, family == null ? "none" : family, pool == null ? "" : pool).inc();
    }

    public void inboxBacklog(LongSupplier pending) {
        GaugeWithCallback.builder().name("acceltriage_inbox_pending_alerts")
                .help("Alerts stored but not yet filed under an incident; it grows while a storm outpaces triage.")
                .callback(cb -> {
                    try {
                        cb.call(pending.getAsLong());
                    } catch (RuntimeException storeDown) {
                        // readiness reports the store; a scrape still serves everything else
                    }
                }).register(registry);
    }

    /** Chat messages queued in the durable outbox and not yet delivered nor given up, all channels, all replicas. */
    public void chatOutboxBacklog(LongSupplier pending) {
        GaugeWithCallback.builder().name("acceltriage_chat_outbox_pending_messages")
                .help("Chat messages queued but not yet delivered nor given up; it grows while a chat service refuses or limits us.")
                .callback(cb -> {
                    try {
                        cb.call(pending.getAsLong());
                    } catch (RuntimeException storeDown) {
                        // readiness reports the store; a scrape still serves everything else
                    }
                }).register(registry);
    }

    /** A proposal and the policy's verdict on it. */
    public void verdict(ActionKind kind, Decision decision) {
        actions.labelValues(kind.wireName(), decision.wireName()).inc();
    }

    /** @param outcome one of {@link #APPROVAL_OUTCOMES} */
    public void approval(String outcome) {
        approvals.labelValues(outcome).inc();
    }

    public void circuitBreaker(boolean tripped) {
        circuitBreaker.set(tripped ? 1 : 0);
    }

    /** @param outcome for example success, error, timeout, guardrail */
    public void modelCall(String model, String outcome) {
        modelCalls.labelValues(model, outcome).inc();
    }

    public void modelTokens(String model, long input, long output) {
        modelTokens.labelValues(model, "input").inc(input);
        modelTokens.labelValues(model, "output").inc(output);
    }

    public void evidenceGaps(List<Gap> gaps) {
        gaps.forEach(g -> evidenceErrors.labelValues(label(g.source())).inc());
    }

    private static String label(Source s) {
        return s.name().toLowerCase();
    }
}
