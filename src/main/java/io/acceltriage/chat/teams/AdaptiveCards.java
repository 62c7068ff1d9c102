package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.store.Json;

/** The envelope Teams expects around an Adaptive Card, for Workflows webhooks and outgoing-webhook answers alike. */
public final class AdaptiveCards {

    public static final String CONTENT_TYPE = "application/vnd.microsoft.card.adaptive";
    public static final String VERSION = "1.4";

    private AdaptiveCards() {}

    /** An empty card: add to its {@code body} and {@code actions}. */
    public static ObjectNode card() {
        ObjectNode card = Json.MAPPER.createObjectNode()
                .put("$schema", "http://adaptivecards.io/schemas/adaptive-card.json")
                .put("type", "AdaptiveCard").put("version", VERSION);
        card.putArray("body");
        card.putArray("actions");
        return card;
    }

    public static ObjectNode text(ArrayNode body, String text) {
        return body.addObject().put("type", "TextBlock").put("text", text).put("wrap", true);
    }

    public static void openUrl(ArrayNode actions, String title, String url) {
        actions.addObject().put("type", "Action.OpenUrl").put("title", title).put("url", url);
    }

    /** {"type":"message","attachments":[{contentType, content: card}]}. */
    public static ObjectNode message(ObjectNode card) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("type", "message");
        m.putArray("attachments").addObject().put("contentType", CONTENT_TYPE).set("content", card);
        return m;
    }

    /** A card of one wrapped text block. */
    public static ObjectNode textMessage(String text) {
        ObjectNode card = card();
        text((ArrayNode) card.get("body"), text);
        return message(card);
    }
}
