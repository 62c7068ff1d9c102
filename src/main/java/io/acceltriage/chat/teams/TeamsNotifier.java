package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.notify.ChatConfig;
import io.acceltriage.notify.ChatThreads;
import io.acceltriage.notify.Delivery;
import io.acceltriage.notify.IncidentMessage;
import io.acceltriage.notify.IncidentMessages;
import io.acceltriage.notify.Notice;
import io.acceltriage.notify.Outbound;
import io.acceltriage.notify.Outgoing;
import io.acceltriage.policy.Policy;
import io.quarkus.arc.lookup.LookupUnlessProperty;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Incidents as Adaptive Cards in a Teams channel, through a Workflows webhook. Such a webhook can
 * neither update a card nor thread, so a card is posted when the incident's state changes, never
 * for each alert. Cards cannot submit: each pending action gets Approve and Reject links, signed for
 * one approver named in the policy, single-use and expiring. Exists only when the webhook is configured.
 */
@ApplicationScoped
@LookupUnlessProperty(name = "acceltriage.teams.webhook-url", stringValue = "", lookupIfMissing = false)
class TeamsNotifier implements Outbound {

    static final String CHANNEL = "teams";
    /** Teams users are named by their Entra ID (AAD) object id; the policy's other approvers are Slack's. */
    /** Teams shows at most six actions on a card; the rest would silently vanish. */
    static final int MAX_ACTIONS = 6;
    static final Pattern AAD_OBJECT_ID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final TeamsPoster poster;
    private final IncidentMessages messages;
    private final ChatThreads threads;
    private final ApprovalLinks links;
    private final Policy policy;
    private final ChatConfig chat;

    TeamsNotifier(TeamsPoster poster, IncidentMessages messages, ChatThreads threads, ApprovalLinks links, Policy policy,
            ChatConfig chat) {
        this.poster = poster;
        this.messages = messages;
        this.threads = threads;
        this.links = links;
        this.policy = policy;
        this.chat = chat;
    }

    @Override
    public String channel() {
        return CHANNEL;
    }

    @Override
    public String kind() {
        return Outgoing.NOTICE;
    }

    @Override
    public java.time.Duration minGap() {
        return TeamsPoster.MIN_GAP;
    }

    /** Sent from the durable outbox, one message of an incident at a time. */
    @Override
    public Delivery attempt(Outgoing message) {
        return deliver(message.notice());
    }

    private Delivery deliver(Notice notice) {
        ChatThreads.Thread last = threads.find(notice.incidentId(), CHANNEL).orElse(null);
        if (last != null && Objects.equals(last.lastEvent(), notice.event())) {
            return Delivery.ok("already told: the incident is still " + notice.event());
        }
        IncidentMessage m = messages.of(notice);
        Delivery r = poster.send(AdaptiveCards.message(card(m)));
        if (r.delivered()) {
            threads.save(m.incidentId(), CHANNEL, new ChatThreads.Thread(null, null, m.event()));
        }
        return r;
    }

    ObjectNode card(IncidentMessage m) {
        ObjectNode card = AdaptiveCards.card();
        ArrayNode body = (ArrayNode) card.get("body");
        AdaptiveCards.heading(body, m.incidentId() + " " + m.eventText() + ": " + m.subject()).put("size", "Medium");
        ArrayNode facts = body.addObject().put("type", "FactSet").putArray("facts");
        facts.addObject().put("title", "Family").put("value", m.family());
        facts.addObject().put("title", "Confidence").put("value", m.confidence());
        facts.addObject().put("title", "State").put("value", m.eventText());
        AdaptiveCards.text(body, m.summary());
        if (!m.evidence().isEmpty()) {
            AdaptiveCards.heading(body, "Key evidence");
            AdaptiveCards.list(body, m.evidence());
        }
        if (!m.done().isEmpty()) {
            AdaptiveCards.heading(body, "Done");
            AdaptiveCards.list(body, m.done());
        }
        if (m.todo().isEmpty()) {
            AdaptiveCards.heading(body, "Nothing for a person to do now.");
        } else {
            AdaptiveCards.heading(body, "A person must now");
            AdaptiveCards.list(body, m.todo());
        }
        ArrayNode actions = (ArrayNode) card.get("actions");
        AdaptiveCards.openUrl(actions, "Open incident " + m.incidentId(), m.link());
        List<String> approvers = teamsApprovers();
        for (IncidentMessage.PendingAction p : m.pending()) {
            if (approvers.isEmpty()) {
                AdaptiveCards.text(body, p.id() + " waits for approval, but the policy names no Teams approver"
                        + " (an Entra object id under approvers); approve it in Slack or the API.");
            }
            for (String approver : approvers) {
                if (actions.size() + 2 > MAX_ACTIONS) {
                    AdaptiveCards.text(body, "More actions wait for approval than this card can hold: decide them from the"
                            + " incident page, or say \"approve ACTION_ID\" to acceltriage.");
                    return card;
                }
                String who = approvers.size() == 1 ? "" : " (for " + approver.substring(0, 8) + "…)";
                AdaptiveCards.openUrl(actions, "Approve " + p.id() + who, approvalUrl(p.id(), ApprovalLinks.Choice.APPROVE, approver));
                AdaptiveCards.openUrl(actions, "Reject " + p.id() + who, approvalUrl(p.id(), ApprovalLinks.Choice.REJECT, approver));
            }
        }
        return card;
    }

    private String approvalUrl(String actionId, ApprovalLinks.Choice choice, String approver) {
        return chat.link("/api/v1/approvals/" + links.issue(actionId, choice, approver));
    }

    private List<String> teamsApprovers() {
        return policy.approvers() == null ? List.of()
                : policy.approvers().stream().filter(a -> AAD_OBJECT_ID.matcher(a).matches()).toList();
    }
}
