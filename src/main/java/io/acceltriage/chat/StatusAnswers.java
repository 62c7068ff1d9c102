package io.acceltriage.chat;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.Executor;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.cluster.ClusterUnreadable;
import io.acceltriage.cluster.Nodes;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.notify.ChatConfig;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Read-only answers: an incident's status, a node's, and why an action was taken or refused (from the audit log). */
@ApplicationScoped
class StatusAnswers {

    private static final List<String> ACCELERATORS = List.of("nvidia.com/gpu", "google.com/tpu", "amd.com/gpu");

    private final IncidentStore incidents;
    private final Executor executor;
    private final AuditReader auditReader;
    private final Nodes nodes;
    private final ChatConfig chat;
    private final Template incidentStatus;

    StatusAnswers(IncidentStore incidents, Executor executor, AuditReader auditReader, Nodes nodes, ChatConfig chat,
            @Location("chat/status-incident.txt") Template incidentStatus) {
        this.incidents = incidents;
        this.executor = executor;
        this.auditReader = auditReader;
        this.nodes = nodes;
        this.chat = chat;
        this.incidentStatus = incidentStatus;
    }

    String incidentStatus(String id) {
        Optional<Incident> found = incidents.find(id);
        if (found.isEmpty()) {
            return "I know no incident " + id + ". `status node NAME` lists a node's incidents.";
        }
        Incident i = found.get();
        return incidentStatus.data("i", i).data("actions", executor.ofIncident(id))
                .data("link", chat.link("/incidents/" + id)).render().strip();
    }

    String nodeStatus(String name) {
        StringBuilder out = new StringBuilder("*" + name + "*: ");
        try {
            Optional<Nodes.NodeInfo> node = nodes.get(name);
            if (node.isEmpty()) {
                out.append("not known to the Kubernetes API server.");
            } else {
                Nodes.NodeInfo n = node.get();
                out.append("Ready=").append(n.ready()).append(n.cordoned() ? ", cordoned" : ", schedulable");
                for (String r : ACCELERATORS) {
                    String cap = n.capacity().get(r);
                    if (cap != null) {
                        out.append(", ").append(r).append(" ").append(n.allocatable().getOrDefault(r, "0")).append("/")
                                .append(cap).append(" allocatable");
                    }
                }
                out.append('.');
            }
        } catch (ClusterUnreadable e) {
            out.append("the Kubernetes API did not answer (").append(e.getMessage()).append(").");
        }
        List<Incident> list = incidents.list(new IncidentFilter(null, null, name, null, null, null, 5));
        if (list.isEmpty()) {
            out.append("\nNo incidents.");
        }
        for (Incident i : list) {
            out.append("\n• ").append(i.id()).append(' ').append(i.subject().key()).append(": ")
                    .append(i.state().name().toLowerCase()).append(i.family() == null ? "" : " · " + i.family())
                    .append(" · opened ").append(i.openedAt()).append(" · ").append(chat.link("/incidents/" + i.id()));
        }
        return out.toString();
    }

    /** Why an action was taken or refused: the verdict policy gave its proposal, and what happened after, from the audit log. */
    String why(String actionId) {
        Optional<ActionRecord> action = executor.find(actionId);
        if (action.isEmpty()) {
            return "I know no action " + actionId + ".";
        }
        ActionRecord r = action.get();
        String proposal = r.kind().wireName() + ":" + r.target();
        List<String> lines = new ArrayList<>();
        lines.add("*" + actionId + "* " + r.kind().wireName() + " " + r.target() + " (incident " + r.incidentId() + "): "
                + r.status().name().toLowerCase() + (r.dryRun() ? ", dry run" : ""));
        for (AuditRecord a : auditReader.find(AuditQuery.forIncident(r.incidentId()))) {
            JsonNode p = a.payload();
            switch (a.kind()) {
                case DIAGNOSIS -> lines.add("• diagnosis: " + p.path("family").asText() + " (confidence "
                        + p.path("confidence").asText() + "): " + p.path("cause").asText());
                case PROPOSAL -> {
                    if (proposal.equals(p.path("kind").asText() + ":" + p.path("target").asText())) {
                        lines.add("• proposed by " + p.path("proposedBy").asText("rules") + ": " + p.path("reason").asText());
                    }
                }
                case VERDICT -> {
                    if (proposal.equals(p.path("proposal").asText())) {
                        JsonNode v = p.path("verdict");
                        List<String> reasons = new ArrayList<>();
                        v.path("reasons").forEach(x -> reasons.add(x.asText()));
                        lines.add("• policy: " + v.path("decision").asText() + " by rule " + v.path("rule").asText()
                                + (reasons.isEmpty() ? "" : " — " + String.join("; ", reasons)));
                    }
                }
                case ACTION_STARTED, ACTION_FINISHED, ACTION_FAILED, APPROVAL -> {
                    if (actionId.equals(p.path("action").asText()) || actionId.equals(p.path("actionId").asText())) {
                        lines.add("• " + a.kind().wireName() + " by " + a.actor() + " at " + a.at()
                                + (p.hasNonNull("detail") ? ": " + p.path("detail").asText() : ""));
                    }
                }
                default -> { }
            }
        }
        return String.join("\n", lines);
    }
}
