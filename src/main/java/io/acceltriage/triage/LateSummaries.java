package io.acceltriage.triage;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.llm.ModelAgent;
import io.acceltriage.agent.llm.ModelAudit;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The model's summary of an incident, asked for after its decision was stored and carried out, on a
 * thread of its own: a model that answers in seconds (or not at all) never holds a verdict, an action
 * or the next incident's triage. When the summary comes, it replaces the template's in the store
 * (unless a later triage wrote a newer one), the calls are audited as {@code model.call} records, and
 * the channels' message is updated with it. A failed or rejected summary leaves the template's, and
 * its guardrail records say why. In rules mode nothing is asked.
 *
 * <p>The queue is bounded: in a storm the summaries beyond it are not asked for (the templates
 * stand), so the model's backlog cannot grow without end. A replica that stops loses the summaries
 * still queued, not a decision.
 */
@ApplicationScoped
public class LateSummaries {

    private static final Logger LOG = Logger.getLogger(LateSummaries.class);
    static final int QUEUE = 200;

    private final FleetResponder responder;
    private final IncidentStore incidents;
    private final Database database;
    private final AuditLog audit;
    private final Escalations escalations;
    private final ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
        Thread t = new Thread(r, "acceltriage-summaries");
        t.setDaemon(true);
        return t;
    });

    LateSummaries(FleetResponder responder, IncidentStore incidents, Database database, AuditLog audit, Escalations escalations) {
        this.responder = responder;
        this.incidents = incidents;
        this.database = database;
        this.audit = audit;
        this.escalations = escalations;
    }

    /** Asks for the model's summary of {@code decided}, stored and told as {@code told}; returns at once. */
    void ask(String incidentId, Assessment decided, Notice told) {
        try {
            worker.execute(() -> {
                try {
                    summarise(incidentId, decided, told);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "the model's summary of %s could not be recorded; the template's stands", incidentId);
                }
            });
        } catch (RejectedExecutionException full) {
            LOG.warnf("%d summaries wait for the model; %s keeps the template's summary", QUEUE, incidentId);
        }
    }

    void summarise(String incidentId, Assessment decided, Notice told) {
        Optional<ModelAgent.Summarised> s = responder.summarise(decided);
        if (s.isEmpty()) return;
        Assessment summarised = s.get().assessment();
        boolean revised = database.transaction(tx -> {
            ModelAudit.append(tx, audit, incidentId, s.get().run());
            return incidents.reviseSummary(tx, incidentId, decided.summary(), summarised.summary(), Json.write(summarised));
        });
        if (!revised || !s.get().accepted()) return;
        // Told again only while the incident still stands where it was told: a later notice (a person's
        // decision, a resolution) reads the summary from the store and carries the new one anyway.
        Optional<Incident> now = incidents.find(incidentId);
        if (now.isPresent() && now.get().state().name().toLowerCase().equals(told.event())) {
            escalations.revise(new Notice(told.incidentId(), told.event(), told.subject(), told.family(), told.confidence(),
                    summarised.summary(), told.needsAPerson(), told.link()));
        }
    }

    @PreDestroy
    void stop() {
        worker.shutdownNow();
    }
}
