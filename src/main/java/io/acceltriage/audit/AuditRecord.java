package io.acceltriage.audit;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/** One link of the hash chain. {@code payload} is the JSON document as it was hashed. */
public record AuditRecord(
        long seq, Instant at, String incidentId, AuditKind kind, String actor, JsonNode payload,
        String prevHash, String hash) {}
