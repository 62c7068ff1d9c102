package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.store.Json;
import java.util.List;

/**
 * The envelope Teams expects around an Adaptive Card, for Workflows webhooks and outgoing-webhook answers alike.
 * A TextBlock renders Markdown (links among it), so text that names the cluster's things — alert labels, log lines,
 * a model's or the rules' summary quoting them — goes into a RichTextBlock's TextRuns, which Adaptive Cards render
 * literally: a label such as {@code [Approve](https://elsewhere)} cannot become a link beside the real buttons.
 */
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

    /** A paragraph shown exactly as written (a TextRun; no Markdown). */
    public static ObjectNode text(ArrayNode body, String text) {
        ObjectNode block = body.addObject().put("type", "RichTextBlock");
        block.putArray("inlines").addObject().put("type", "TextRun").put("text", text);
        return block;
    }

    /** A paragraph in bold, shown exactly as written. */
    public static ObjectNode heading(ArrayNode body, String text) {
        ObjectNode run = (ObjectNode) text(body, text).get("inlines").get(0);
        run.put("weight", "Bolder");
        return run;
    }

    /** One bulleted line per item, each shown exactly as written. */
    public static void list(ArrayNode body, List<String> items) {
        for (String item : items) {
            text(body, "• " + item);
        }
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
