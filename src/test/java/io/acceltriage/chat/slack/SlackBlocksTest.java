package io.acceltriage.chat.slack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.notify.IncidentMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlackBlocksTest {

    @Test
    void eachPendingActionGetsApproveAndRejectButtonsCarryingItsId() {
        IncidentMessage m = new IncidentMessage("inc-1", "awaiting_approval", "node:gpu-1", "device", "0.90", "s", List.of(),
                List.of(), List.of(), List.of(new IncidentMessage.PendingAction("act-9", "drain-node", "gpu-1", "policy: approve")),
                "https://x/incidents/inc-1");
        JsonNode blocks = SlackNotifier.blocks(m, "text");
        JsonNode buttons = blocks.path(2).path("elements");
        assertEquals("actions", blocks.path(2).path("type").asText());
        assertEquals("approve", buttons.path(0).path("action_id").asText());
        assertEquals("reject", buttons.path(1).path("action_id").asText());
        assertEquals("act-9", buttons.path(0).path("value").asText());
        assertEquals("act-9", buttons.path(1).path("value").asText());
    }

    @Test
    void aLongTextIsCutToWhatSlackAcceptsAndControlCharactersAreEscaped() {
        IncidentMessage m = new IncidentMessage("inc-1", "escalated", "node:gpu-1", "device", "0.90", "s", List.of(), List.of(),
                List.of(), List.of(), "https://x/incidents/inc-1");
        assertEquals(SlackNotifier.MAX_SECTION, SlackNotifier.blocks(m, "x".repeat(5000)).path(0).path("text").path("text").asText().length());
        assertTrue(SlackText.mrkdwn("<!channel> & <@U1>").equals("&lt;!channel&gt; &amp; &lt;@U1&gt;"));
    }
}
