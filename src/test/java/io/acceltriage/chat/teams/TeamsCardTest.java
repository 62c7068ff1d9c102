package io.acceltriage.chat.teams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.notify.ChatConfig;
import io.acceltriage.notify.IncidentMessage;
import io.acceltriage.policy.Policy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TeamsCardTest {

    static final String AAD = "6f1d3a52-9b0e-4c1f-8d3a-2e5b7c9d0a11";
    final ApprovalLinks links = new ApprovalLinks(Optional.of("k".repeat(40)), Duration.ofHours(1), Clock.systemUTC());
    final ChatConfig chat = () -> "https://triage.example.test";

    TeamsNotifier notifier(List<String> approvers) {
        Policy policy = new Policy("acceltriage.io/v1", "Policy", null, false, null, null, null, null, null, null, null, null, null, approvers, null, null, null, null, null);
        return new TeamsNotifier(null, null, null, links, policy, chat);
    }

    final IncidentMessage pending = new IncidentMessage("inc-7", "awaiting_approval", "node:gpu-1", "device", "0.90",
            "XID 79 on gpu-1", List.of(), List.of(), List.of(),
            List.of(new IncidentMessage.PendingAction("act-9", "drain-node", "gpu-1", "approve")), "https://triage.example.test/incidents/inc-7");

    @Test
    void pendingActionsGetSignedLinksForTheTeamsApproverOnly() throws Exception {
        JsonNode card = notifier(List.of("U0SLACKUSER", AAD)).card(pending);
        assertEquals("1.4", card.path("version").asText());
        JsonNode actions = card.path("actions");
        assertEquals(3, actions.size(), actions.toString());
        assertEquals("Action.OpenUrl", actions.path(1).path("type").asText());
        String url = actions.path(1).path("url").asText();
        assertTrue(url.startsWith("https://triage.example.test/api/v1/approvals/"), url);
        ApprovalLinks.Grant g = links.check(url.substring(url.lastIndexOf('/') + 1));
        assertEquals("act-9", g.actionId());
        assertEquals(AAD, g.approver());
        assertEquals(ApprovalLinks.Choice.APPROVE, g.choice());
        String reject = actions.path(2).path("url").asText();
        assertEquals(ApprovalLinks.Choice.REJECT, links.check(reject.substring(reject.lastIndexOf('/') + 1)).choice());
    }

    @Test
    void withoutATeamsApproverTheCardSaysSoInsteadOfOfferingLinks() {
        JsonNode card = notifier(List.of("U0SLACKUSER")).card(pending);
        assertEquals(1, card.path("actions").size());
        assertTrue(card.path("body").toString().contains("names no Teams approver"));
    }

    @Test
    void aCardNeverCarriesMoreActionsThanTeamsShows() {
        List<IncidentMessage.PendingAction> many = List.of(
                new IncidentMessage.PendingAction("act-1", "drain-node", "gpu-1", "approve"),
                new IncidentMessage.PendingAction("act-2", "drain-node", "gpu-2", "approve"),
                new IncidentMessage.PendingAction("act-3", "drain-node", "gpu-3", "approve"),
                new IncidentMessage.PendingAction("act-4", "drain-node", "gpu-4", "approve"));
        IncidentMessage m = new IncidentMessage("inc-7", "awaiting_approval", "node:gpu-1", "device", "0.90", "s", List.of(),
                List.of(), List.of(), many, "https://triage.example.test/incidents/inc-7");
        JsonNode card = notifier(List.of(AAD)).card(m);
        assertTrue(card.path("actions").size() <= TeamsNotifier.MAX_ACTIONS, card.path("actions").toString());
        assertTrue(card.path("body").toString().contains("approve ACTION_ID"));
    }

    @Test
    void textFromTheClusterIsShownLiterallyAndNeverBecomesALinkOrAButton() {
        String link = "[Approve act-9](https://attacker.example/steal)";
        IncidentMessage m = new IncidentMessage("inc-7", "awaiting_approval", "node:gpu-1", "device", "0.90",
                "XID 79 on gpu-1 " + link, List.of("log: " + link + " **urgent**"), List.of("cordon-node gpu-1 " + link),
                List.of("check " + link), pending.pending(), "https://triage.example.test/incidents/inc-7");
        JsonNode card = notifier(List.of(AAD)).card(m);
        int shown = 0;
        for (JsonNode element : card.path("body")) {
            assertTrue(!element.path("type").asText().equals("TextBlock") || !element.toString().contains("attacker"),
                    "a TextBlock renders Markdown, so cluster text must not be in one: " + element);
            if (element.path("type").asText().equals("RichTextBlock") && element.toString().contains("attacker.example")) {
                for (JsonNode run : element.path("inlines")) {
                    assertEquals("TextRun", run.path("type").asText(), "a TextRun is shown as written: " + run);
                    assertTrue(run.path("selectAction").isMissingNode(), "no action hides behind the text: " + run);
                }
                shown++;
            }
        }
        assertEquals(4, shown, "summary, evidence, done and to-do each shown once, as written: " + card.path("body"));
        for (JsonNode action : card.path("actions")) {
            assertTrue(action.path("url").asText().startsWith("https://triage.example.test/"), "only our own links: " + action);
        }
    }
}
