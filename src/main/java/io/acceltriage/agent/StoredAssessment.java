package io.acceltriage.agent;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Json;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * An {@link Assessment} as its incident stores it, read back typed: the one schema the pages, the
 * chat messages and the API's queries share, instead of each reading the document by path. Names and
 * families stay the strings that were written; a fact stays a tree (each kind of fact has its own
 * fields, and readers show them as name/value pairs). Unknown fields are ignored: documents written
 * by an older or newer version still read.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StoredAssessment(String mode, String summary, List<String> escalationReasons, Bundle evidence,
        Findings diagnosis, List<Judged> judgements, List<WorkLost> workLost) {

    public StoredAssessment {
        workLost = workLost == null ? List.of() : workLost;
        escalationReasons = escalationReasons == null ? List.of() : escalationReasons;
        evidence = evidence == null ? new Bundle(List.of(), List.of()) : evidence;
        judgements = judgements == null ? List.of() : judgements;
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Bundle(List<Item> items, List<Missing> gaps, List<Pod> pods) {
        public Bundle {
            items = items == null ? List.of() : items;
            gaps = gaps == null ? List.of() : gaps;
            pods = pods == null ? List.of() : pods;
        }

        public Bundle(List<Item> items, List<Missing> gaps) {
            this(items, gaps, List.of());
        }
    }

    /** A pod on the subject's node as triage found it; {@code role} WORKLOAD or a node agent's. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Pod(String namespace, String name, String node, String role, int accelerators, String workloadRef) {
        public boolean workload() {
            return "WORKLOAD".equals(role);
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Item(String id, String source, String summary, JsonNode fact) {

        /**
         * The fact as its type ({@code evidence.Facts}), for readers that use its fields (charts, timings);
         * empty for a kind this version does not know (a document written by a newer one).
         */
        public java.util.Optional<io.acceltriage.evidence.Fact> typedFact() {
            if (fact == null || fact.isNull()) return java.util.Optional.empty();
            try {
                return java.util.Optional.of(Json.MAPPER.convertValue(fact, io.acceltriage.evidence.Fact.class));
            } catch (IllegalArgumentException e) {
                return java.util.Optional.empty();
            }
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Missing(String source, String reason, boolean failed) {}

    /** The deterministic diagnosis; {@code confidence} null when the document has none. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Findings(String family, String cause, Double confidence, List<String> evidenceIds, List<Finding> findings,
            List<String> notes) {
        public Findings {
            evidenceIds = evidenceIds == null ? List.of() : evidenceIds;
            findings = findings == null ? List.of() : findings;
            notes = notes == null ? List.of() : notes;
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Finding(String family, double weight, String cause, List<String> evidenceIds) {
        public Finding {
            evidenceIds = evidenceIds == null ? List.of() : evidenceIds;
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Judged(Proposed proposal, Ruled verdict) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Proposed(String kind, String target, String reason, String proposedBy) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Ruled(String decision, String rule, List<String> reasons) {
        public Ruled {
            reasons = reasons == null ? List.of() : reasons;
        }
    }

    /** The stored document, typed; null for none. A document that is not an assessment is a bug of ours: it throws. */
    public static StoredAssessment read(String json) {
        return json == null ? null : Json.read(json, StoredAssessment.class);
    }

    /** The evidence the diagnosis rests on, in the order it was gathered. */
    public List<Item> citedEvidence() {
        Set<String> cited = Set.copyOf(diagnosis == null ? List.of() : diagnosis.evidenceIds());
        return evidence.items().stream().filter(i -> cited.contains(i.id())).toList();
    }

    public boolean cites(String evidenceId) {
        return diagnosis != null && diagnosis.evidenceIds().stream().anyMatch(id -> Objects.equals(id, evidenceId));
    }
}
