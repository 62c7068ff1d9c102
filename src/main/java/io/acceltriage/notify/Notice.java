package io.acceltriage.notify;

import java.util.List;

/** A message about an incident for humans: what changed, the summary, and what they must do now. */
public record Notice(String incidentId, String event, String subject, String family, double confidence, String summary,
        List<String> needsAPerson, String link) {}
