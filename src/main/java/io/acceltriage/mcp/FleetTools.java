package io.acceltriage.mcp;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.Investigation;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.config.KubernetesNames;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentState;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.incident.Subject;
import io.acceltriage.store.Json;
import io.acceltriage.triage.Responder;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolCallException;
import jakarta.inject.Singleton;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * acceltriage's view of the fleet as MCP tools, for other agents (kagent, HolmesGPT, IDE assistants):
 * incidents, one incident with its evidence and verdicts, the audit log, and a read-only triage that
 * says what policy would do. Nothing here acts: an investigation gathers, classifies and judges, and
 * carries out nothing. Every argument is checked; a bad one is a tool error that says why.
 */
@Singleton
public class FleetTools {

    private static final int MAX_LIMIT = 100;

    private final IncidentStore incidents;
    private final Executor actions;
    private final AuditReader audit;
    private final Responder responder;

    FleetTools(IncidentStore incidents, Executor actions, AuditReader audit, Responder responder) {
        this.incidents = incidents;
        this.actions = actions;
        this.audit = audit;
        this.responder = responder;
    }

    @Tool(name = "list_incidents", description = "Incidents acceltriage opened, newest first: id, subject, state, failure family"
            + " (infrastructure, device, application, none), confidence and summary. Filter by state or node.")
    public String listIncidents(
            @ToolArg(description = "triaging, mitigated, awaiting_approval, escalated, no_fault or resolved", required = false) String state,
            @ToolArg(description = "a node name", required = false) String node,
            @ToolArg(description = "at most this many, 1 to 100 (default 20)", required = false) Integer limit) {
        IncidentState s = state == null || state.isBlank() ? null : state(state);
        List<Map<String, Object>> out = incidents.list(new IncidentFilter(s, null, blankToNull(node, "node"), null, null, null,
                limit(limit))).stream().map(FleetTools::headline).toList();
        return Json.write(out);
    }

    @Tool(name = "get_incident", description = "One incident: its diagnosis (family, cause, confidence), the evidence the"
            + " diagnosis cites, every proposal with the policy's verdict and deciding rule, and the actions taken.")
    public String getIncident(@ToolArg(description = "the incident id, e.g. inc-85c4b4011c1d") String id) {
        if (id == null || !id.matches("inc-[0-9a-f]{1,32}")) throw new ToolCallException("id must look like inc-85c4b4011c1d");
        Incident i = incidents.find(id).orElseThrow(() -> new ToolCallException("no incident " + id));
        Map<String, Object> out = headline(i);
        StoredAssessment a = StoredAssessment.read(i.assessmentJson());
        if (a != null) {
            out.put("cause", a.diagnosis() == null ? null : a.diagnosis().cause());
            out.put("evidence", a.citedEvidence().stream().map(e -> e.id() + " [" + e.source() + "] " + e.summary()).toList());
            out.put("proposals", a.judgements().stream().map(j -> j.proposal().kind() + ":" + j.proposal().target() + " -> "
                    + j.verdict().decision() + " (" + j.verdict().rule() + ")").toList());
            out.put("needsAPerson", a.escalationReasons());
        }
        out.put("actions", actions.ofIncident(id).stream().map(FleetTools::action).toList());
        return Json.write(out);
    }

    @Tool(name = "search_audit", description = "The hash-chained audit log: alerts received, evidence, diagnoses, model calls,"
            + " proposals, verdicts, approvals, actions. Filter by incident, kind or text.")
    public String searchAudit(
            @ToolArg(description = "an incident id", required = false) String incident,
            @ToolArg(description = "a record kind, e.g. verdict, action.finished, model.call", required = false) String kind,
            @ToolArg(description = "text the record contains", required = false) String text,
            @ToolArg(description = "at most this many, 1 to 100 (default 20)", required = false) Integer limit) {
        AuditKind k = kind == null || kind.isBlank() ? null : Arrays.stream(AuditKind.values()).filter(x -> x.wireName().equals(kind))
                .findFirst().orElseThrow(() -> new ToolCallException("kind must be one of " + Arrays.stream(AuditKind.values())
                        .map(AuditKind::wireName).toList()));
        if (text != null && text.length() > 200) throw new ToolCallException("text is at most 200 characters");
        List<AuditRecord> found = audit.find(new AuditQuery(blankToNull(incident, "incident"), k, null, null, null,
                text == null || text.isBlank() ? null : text, null, limit(limit)));
        return Json.write(found.stream().map(r -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("seq", r.seq());
            m.put("at", r.at().toString());
            m.put("incident", r.incidentId());
            m.put("kind", r.kind().wireName());
            m.put("actor", r.actor());
            m.put("payload", r.payload());
            return m;
        }).toList());
    }

    @Tool(name = "investigate", description = "Triage a node, pod or workload now, read-only: gathers device metrics, device"
            + " health, pod status, events and logs, classifies the failure family and says what policy would do with each"
            + " mitigation the rules propose. Nothing is carried out and no incident is opened.")
    public String investigate(
            @ToolArg(description = "node, pod or workload") String kind,
            @ToolArg(description = "node: NAME; pod: NAMESPACE/NAME; workload: NAMESPACE/KIND/NAME (e.g. ml/jobset/llama-pt)") String name) {
        return Json.write(Investigation.of(responder.assess(subject(kind, name), List.of())));
    }

    private static Subject subject(String kind, String name) {
        if (kind == null || name == null) throw new ToolCallException("kind and name are both needed");
        String[] parts = name.split("/", -1);
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "node" -> {
                if (parts.length == 1 && KubernetesNames.isName(name)) return Subject.node(name);
            }
            case "pod" -> {
                if (parts.length == 2 && KubernetesNames.isName(parts[0]) && KubernetesNames.isName(parts[1])) {
                    return Subject.pod(parts[0], parts[1]);
                }
            }
            case "workload" -> {
                if (parts.length == 3 && KubernetesNames.isName(parts[0]) && parts[1].matches("[a-z]{1,63}")
                        && KubernetesNames.isName(parts[2])) {
                    return new Subject(Subject.Kind.WORKLOAD, parts[0], parts[1] + "/" + parts[2]);
                }
            }
            default -> throw new ToolCallException("kind must be node, pod or workload");
        }
        throw new ToolCallException("name must be a Kubernetes name: node NAME, pod NAMESPACE/NAME, workload NAMESPACE/KIND/NAME");
    }

    private static Map<String, Object> headline(Incident i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", i.id());
        m.put("subject", i.subject().key());
        m.put("node", i.node());
        m.put("state", i.state().name().toLowerCase(Locale.ROOT));
        m.put("family", i.family());
        m.put("confidence", i.confidence());
        m.put("alerts", i.alertCount());
        m.put("openedAt", i.openedAt().toString());
        m.put("summary", i.summary());
        return m;
    }

    private static String action(ActionRecord r) {
        return r.id() + " " + r.kind().wireName() + ":" + r.target() + " " + r.status().name().toLowerCase(Locale.ROOT)
                + (r.dryRun() ? " (dry run)" : "") + (r.detail() == null ? "" : ": " + r.detail());
    }

    private static IncidentState state(String s) {
        try {
            return IncidentState.valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ToolCallException("state must be one of triaging, mitigated, awaiting_approval, escalated, no_fault, resolved");
        }
    }

    private static String blankToNull(String v, String what) {
        if (v == null || v.isBlank()) return null;
        if (v.length() > 253 || v.chars().anyMatch(Character::isISOControl)) throw new ToolCallException(what + " is not a name");
        return v;
    }

    private static int limit(Integer limit) {
        if (limit == null) return 20;
        if (limit < 1 || limit > MAX_LIMIT) throw new ToolCallException("limit must be between 1 and " + MAX_LIMIT);
        return limit;
    }
}
