package io.acceltriage.chat;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.Approvals;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.Assessment;
import io.acceltriage.triage.Responder;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.notify.ChatConfig;
import io.acceltriage.policy.CircuitBreakerControl;
import io.acceltriage.policy.Policy;
import io.acceltriage.store.Database;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Answers what people say in Slack or Teams: one parser, one set of answers, so both channels behave
 * the same. Approvals and breaker resets only for the people the policy's {@code approvers} names;
 * everyone else is told, politely, and the refusal is audited.
 */
@ApplicationScoped
public class Conversation {

    private static final Logger LOG = Logger.getLogger(Conversation.class);
    static final String NO_APPROVALS = "approvals are not available in this build";
    static final String NO_BREAKER = "the circuit breaker cannot be reset from chat in this build";
    private static final List<String> ACCELERATORS = List.of("nvidia.com/gpu", "google.com/tpu", "amd.com/gpu");

    private final Instance<Responder> responder;
    private final IncidentStore incidents;
    private final Executor executor;
    private final AuditReader auditReader;
    private final AuditLog audit;
    private final Database database;
    private final Policy policy;
    private final Instance<Approvals> approvals;
    private final Instance<CircuitBreakerControl> breaker;
    private final Instance<KubernetesClient> cluster;
    private final Silences silences;
    private final ChatConfig chat;
    private final Template help;
    private final Template investigation;
    private final Template incidentStatus;

    Conversation(Instance<Responder> responder, IncidentStore incidents, Executor executor, AuditReader auditReader,
            AuditLog audit, Database database, Policy policy, Instance<Approvals> approvals,
            Instance<CircuitBreakerControl> breaker, Instance<KubernetesClient> cluster, Silences silences, ChatConfig chat,
            @Location("chat/help.txt") Template help, @Location("chat/investigation.txt") Template investigation,
            @Location("chat/status-incident.txt") Template incidentStatus) {
        this.responder = responder;
        this.incidents = incidents;
        this.executor = executor;
        this.auditReader = auditReader;
        this.audit = audit;
        this.database = database;
        this.policy = policy;
        this.approvals = approvals;
        this.breaker = breaker;
        this.cluster = cluster;
        this.silences = silences;
        this.chat = chat;
        this.help = help;
        this.investigation = investigation;
        this.incidentStatus = incidentStatus;
    }

    /** The answer to {@code text} from {@code user}. May take seconds (an investigation): call it off the request thread. */
    public String answer(ChatUser user, String text) {
        Command command = CommandParser.parse(text);
        try {
            return respond(user, command);
        } catch (RuntimeException e) {
            LOG.errorf(e, "chat command from %s failed: %s", user.actor(), command);
            return "Sorry, that failed on my side (" + e.getClass().getSimpleName() + "); the service log has the details.";
        }
    }

    private String respond(ChatUser user, Command command) {
        if (command instanceof Command.Help) return help.render().strip();
        if (command instanceof Command.Investigate i) return investigate(i);
        if (command instanceof Command.IncidentStatus s) return incidentStatus(s.incidentId());
        if (command instanceof Command.NodeStatus s) return nodeStatus(s.node());
        if (command instanceof Command.Why w) return why(w.actionId());
        if (command instanceof Command.Approve a) return decide(user, a.actionId(), true, null);
        if (command instanceof Command.Reject r) return decide(user, r.actionId(), false, r.reason());
        if (command instanceof Command.Silence s) return silence(user, s);
        if (command instanceof Command.ResetBreaker) return resetBreaker(user);
        return ((Command.Unknown) command).problem() + ". Say `help` for what I understand.";
    }

    public boolean mayApprove(ChatUser user) {
        return policy.approvers() != null && policy.approvers().contains(user.id());
    }

    /** Approves or rejects through {@link Approvals}, for approvers only. */
    public String decide(ChatUser user, String actionId, boolean approve, String reason) {
        String verb = approve ? "approve" : "reject";
        if (!mayApprove(user)) {
            refused(user, verb + " " + actionId);
            return "Sorry" + display(user) + ", only the people the policy names as approvers may " + verb
                    + " actions. Ask one of them, or the on-call lead.";
        }
        if (!approvals.isResolvable()) {
            return NO_APPROVALS;
        }
        Approvals.Result r = approve ? approvals.get().approve(actionId, user.id())
                : approvals.get().reject(actionId, user.id(), reason == null ? "rejected in " + user.platform() : reason);
        return (r.accepted() ? (approve ? "Approved " : "Rejected ") : "Nothing done for ") + actionId
                + (r.status() == null ? "" : " (now " + r.status().name().toLowerCase() + ")")
                + (r.message() == null ? "" : ": " + r.message());
    }

    private String resetBreaker(ChatUser user) {
        if (!mayApprove(user)) {
            refused(user, "reset breaker");
            return "Sorry" + display(user) + ", only the people the policy names as approvers may reset the circuit breaker.";
        }
        if (!breaker.isResolvable()) {
            return NO_BREAKER;
        }
        CircuitBreakerControl b = breaker.get();
        if (!b.tripped()) {
            return "The circuit breaker is not tripped; nothing to reset.";
        }
        b.reset(user.id());
        return "Circuit breaker reset by " + user.id() + "; mitigations may run again.";
    }

    private void refused(ChatUser user, String asked) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("platform", user.platform());
        p.put("user", user.id());
        p.put("asked", asked);
        p.put("reason", "not an approver in the policy");
        audit.append(null, AuditKind.ACCESS_DENIED, user.id(), p);
    }

    private String investigate(Command.Investigate i) {
        if (!responder.isResolvable()) {
            return "investigations are not available in this build";
        }
        Assessment a = responder.get().assess(i.subject(), List.of());
        return investigation.data("a", a).render().strip();
    }

    private String incidentStatus(String id) {
        Optional<Incident> found = incidents.find(id);
        if (found.isEmpty()) {
            return "I know no incident " + id + ". `status node NAME` lists a node's incidents.";
        }
        Incident i = found.get();
        return incidentStatus.data("i", i).data("actions", executor.ofIncident(id))
                .data("link", chat.link("/incidents/" + id)).render().strip();
    }

    private String nodeStatus(String name) {
        StringBuilder out = new StringBuilder("*" + name + "*: ");
        try {
            Node node = cluster.isResolvable() ? cluster.get().nodes().withName(name).get() : null;
            if (node == null) {
                out.append("not known to the Kubernetes API server.");
            } else {
                String ready = node.getStatus() == null || node.getStatus().getConditions() == null ? "unknown"
                        : node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                                .map(NodeCondition::getStatus).findFirst().orElse("unknown");
                out.append("Ready=").append(ready)
                        .append(Boolean.TRUE.equals(node.getSpec().getUnschedulable()) ? ", cordoned" : ", schedulable");
                for (String r : ACCELERATORS) {
                    Quantity cap = node.getStatus().getCapacity() == null ? null : node.getStatus().getCapacity().get(r);
                    if (cap != null) {
                        Quantity alloc = node.getStatus().getAllocatable() == null ? null : node.getStatus().getAllocatable().get(r);
                        out.append(", ").append(r).append(" ").append(alloc == null ? "0" : alloc.getAmount()).append("/")
                                .append(cap.getAmount()).append(" allocatable");
                    }
                }
                out.append('.');
            }
        } catch (KubernetesClientException e) {
            out.append("the Kubernetes API did not answer (").append(e.getCode()).append(").");
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
    private String why(String actionId) {
        Optional<ActionRecord> action = action(actionId);
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

    /** An action by id, as the store holds it now. */
    public Optional<ActionRecord> action(String actionId) {
        return incidentOfAction(actionId).flatMap(id -> executor.ofIncident(id).stream()
                .filter(r -> r.id().equals(actionId)).findFirst());
    }

    private Optional<String> incidentOfAction(String actionId) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select incident_id from actions where id = ?")) {
                ps.setString(1, actionId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty();
                }
            }
        });
    }

    private String silence(ChatUser user, Command.Silence s) {
        Silences.Outcome o = silences.create(s, user);
        if (o.problem() != null) {
            return "No silence was created: " + o.problem();
        }
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("silence", o.silenceId());
        p.put("matchers", String.valueOf(s.matchers()));
        p.put("endsAt", String.valueOf(o.endsAt()));
        p.put("platform", user.platform());
        audit.append(null, AuditKind.SILENCE, user.id(), p);
        return "Silenced " + s.matchers() + " until " + o.endsAt() + " (silence " + o.silenceId() + ").";
    }

    private static String display(ChatUser user) {
        return user.name() == null || user.name().isBlank() ? "" : " " + user.name();
    }
}
