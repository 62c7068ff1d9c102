package io.acceltriage.agent.llm;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Read-only incident and audit history for the model: recent incidents (of a node), one incident's
 * headline, and its audit trail. They only read the store.
 */
@ApplicationScoped
class HistoryTools {

    private static final int MAX_ROWS = 20;

    private final IncidentStore incidents;
    private final AuditReader audit;

    HistoryTools(IncidentStore incidents, AuditReader audit) {
        this.incidents = incidents;
        this.audit = audit;
    }

    /** What chat answers look things up with: recent incidents, one incident, its audit trail. */
    List<AgentTool> tools() {
        return List.of(recentIncidents(),
                EvidenceTools.tool(ToolSpecification.builder().name("get_incident")
                        .description("One incident by id: subject, state, family, confidence, summary.")
                        .parameters(JsonObjectSchema.builder().addStringProperty("id", "the incident id").required("id").build()).build(),
                        args -> incident(AgentTool.text(args, "id"))),
                EvidenceTools.tool(ToolSpecification.builder().name("audit_trail")
                        .description("The audit records of one incident in order: what was received, concluded, proposed, judged and done.")
                        .parameters(JsonObjectSchema.builder().addStringProperty("incident_id", "the incident id").required("incident_id").build()).build(),
                        args -> auditTrail(AgentTool.text(args, "incident_id"))));
    }

    /** One incident's headline, as the get_incident tool and a chat answer's context give it. */
    String incident(String id) {
        return incidents.find(id == null ? "" : id).map(HistoryTools::line).orElse("no incident " + id);
    }

    /** One incident's audit records in order, each cut to 400 characters, as the audit_trail tool gives them. */
    String auditTrail(String id) {
        List<AuditRecord> rows = audit.find(new AuditQuery(id, null, null, null, null, null, null, 50));
        if (rows.isEmpty()) return "no audit records for " + id;
        StringBuilder sb = new StringBuilder();
        for (AuditRecord r : rows) {
            String p = r.payload() == null ? "" : r.payload().toString();
            sb.append(r.at()).append(' ').append(r.kind().wireName()).append(' ')
                    .append(p.length() > 400 ? p.substring(0, 400) + "…" : p).append('\n');
        }
        return sb.toString().strip();
    }

    /**
     * What an investigation may need of the history: whether this node or workload failed before
     * (fleet patterns). One incident's audit trail is a chat question, and its specification would be
     * paid again on every round trip of every investigation.
     */
    List<AgentTool> forInvestigation() {
        return List.of(recentIncidents());
    }

    private AgentTool recentIncidents() {
        return EvidenceTools.tool(ToolSpecification.builder().name("recent_incidents")
                .description("Latest incidents, newest first, optionally of one node: did it fail before?")
                .parameters(JsonObjectSchema.builder().addStringProperty("node", "a node name, or empty for all").build()).build(),
                args -> {
                    String node = AgentTool.text(args, "node");
                    List<Incident> rows = incidents.list(new IncidentFilter(null, null, node == null || node.isBlank() ? null : node,
                            null, null, null, MAX_ROWS));
                    if (rows.isEmpty()) return "no incidents";
                    StringBuilder sb = new StringBuilder();
                    rows.forEach(i -> sb.append(line(i)).append('\n'));
                    return sb.toString().strip();
                });
    }

    private static String line(Incident i) {
        return i.id() + " " + i.subject().key() + " " + i.state().name().toLowerCase() + " " + (i.family() == null ? "-" : i.family())
                + " opened " + i.openedAt() + (i.summary() == null ? "" : ": " + i.summary());
    }
}
