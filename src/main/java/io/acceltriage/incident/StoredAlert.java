package io.acceltriage.incident;

import java.time.Instant;

/** An alert as the inbox keeps it, with its row id and the incident it was filed under. */
public record StoredAlert(long id, Alert alert, Instant receivedAt, String incidentId) {}
