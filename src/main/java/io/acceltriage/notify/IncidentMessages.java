package io.acceltriage.notify;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.IncidentRunbooks;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.diagnosis.Runbooks;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Builds the message of a notice from what the store holds about the incident at the moment it is
 * sent: the cited evidence of the assessment, the actions and how they ended, the ones waiting.
 */
@ApplicationScoped
public class IncidentMessages {

    static final int MAX_EVIDENCE = 4;

    private final IncidentStore incidents;
    private final Executor executor;
    private final Runbooks runbooks;
    private final ChatConfig config;

    IncidentMessages(IncidentStore incidents, Executor executor, ChatConfig config, Runbooks runbooks) {
        this.incidents = incidents;
        this.executor = executor;
        this.runbooks = runbooks;
        this.config = config;
    }

    public IncidentMessage of(Notice n) {
        List<String> evidence = new ArrayList<>();
        Incident incident = incidents.find(n.incidentId()).orElse(null);
        if (incident != null && incident.assessmentJson() != null) {
            evidence.addAll(citedEvidence(incident.assessmentJson()));
        }
        List<String> done = new ArrayList<>();
        List<IncidentMessage.PendingAction> pending = new ArrayList<>();
        for (ActionRecord r : executor.ofIncident(n.incidentId())) {
            if (r.status() == ActionStatus.AWAITING_APPROVAL) {
                pending.add(new IncidentMessage.PendingAction(r.id(), r.kind().wireName(), r.target(), r.detail()));
            } else if (r.status() != ActionStatus.PLANNED) {
                done.add(r.kind().wireName() + " " + r.target() + ": " + r.status().name().toLowerCase(Locale.ROOT).replace('_', ' ')
                        + (r.dryRun() ? " (dry run)" : ""));
            }
        }
        List<String> todo = new ArrayList<>(n.needsAPerson());
        for (IncidentMessage.PendingAction p : pending) {
            todo.add("approve or reject " + p.id() + " (" + p.kind() + " " + p.target() + ")");
        }
        if (incident != null) {
            IncidentRunbooks.of(runbooks, incident.assessmentJson()).ifPresent(r -> todo.add(runbookLine(r)));
        }
        return new IncidentMessage(n.incidentId(), n.event(), n.subject(), n.family(),
                String.format(Locale.ROOT, "%.2f", n.confidence()), n.summary(), evidence, done, dedup(todo), pending,
                config.link(n.link() == null ? "/incidents/" + n.incidentId() : n.link()));
    }

    /** The incident's runbook in one line: its title, the first step and the vendor's first guide. */
    static String runbookLine(Runbooks.Runbook r) {
        return "follow runbook " + r.id() + " (" + r.title() + "): " + r.next().get(0) + " Guide: " + r.links().get(0).url();
    }

    /** The evidence items the diagnosis cites, "[id] summary", at most {@link #MAX_EVIDENCE}. */
    static List<String> citedEvidence(String assessmentJson) {
        StoredAssessment a;
        try {
            a = StoredAssessment.read(assessmentJson);
        } catch (IllegalArgumentException e) {
            return List.of();
        }
        return a.citedEvidence().stream().limit(MAX_EVIDENCE).map(i -> "[" + i.id() + "] " + i.summary()).toList();
    }

    private static List<String> dedup(List<String> items) {
        return items.stream().distinct().toList();
    }
}
