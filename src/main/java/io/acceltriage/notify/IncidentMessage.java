package io.acceltriage.notify;

import java.util.List;

/**
 * What a chat message about an incident says, whatever the channel: what happened, family and
 * confidence, the key evidence, what was done, what a person must do now, and the link. Channels
 * render it with their own template and add their own buttons for {@code pending}.
 */
public record IncidentMessage(String incidentId, String event, String subject, String family, String confidence,
        String summary, List<String> evidence, List<String> done, List<String> todo, List<PendingAction> pending,
        String link) {

    /** An action that waits for a person's approval. */
    public record PendingAction(String id, String kind, String target, String reason) {}

    /** The headline word of the event, for people: "awaiting_approval" → "awaiting approval". */
    public String eventText() {
        return event.replace('_', ' ');
    }
}
