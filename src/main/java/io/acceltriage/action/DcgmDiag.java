package io.acceltriage.action;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The result of {@code dcgmi diag -r N -j}, read as DCGM writes it: a root object {@code "DCGM Diagnostic"}
 * (DCGM 4; {@code "DCGM GPU Diagnostic"} in DCGM 3) with {@code test_categories[].tests[]}, each test with
 * per-entity {@code results[]} ({@code entity_group}, {@code entity_id}, {@code status} Pass|Fail|Skip|Warn,
 * {@code warnings[].warning}) and a {@code test_summary.status}. A node passes when no test failed;
 * a failure keeps DCGM's own words.
 */
record DcgmDiag(String version, List<Failure> failures, int tests) {

    /** One failing test on one entity, in DCGM's words. */
    record Failure(String category, String test, String entity, String message) {
        @Override
        public String toString() {
            return test + " (" + category + ") failed on " + entity + (message.isEmpty() ? "" : ": " + message);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    boolean passed() {
        return failures.isEmpty();
    }

    /**
     * The failures as one line a person reads: every failing test and its message; one test failing the same way on
     * several entities (a broken driver stack fails every GPU) is said once, naming them all.
     */
    String words() {
        java.util.Map<String, List<Failure>> same = new java.util.LinkedHashMap<>();
        for (Failure f : failures) same.computeIfAbsent(f.category() + "\u0000" + f.test() + "\u0000" + f.message(), k -> new ArrayList<>()).add(f);
        StringBuilder b = new StringBuilder();
        for (List<Failure> group : same.values()) {
            Failure f = group.get(0);
            String on = String.join(", ", group.stream().map(Failure::entity).toList());
            b.append(b.isEmpty() ? "" : "; ").append(group.size() == 1 ? f.toString()
                    : new Failure(f.category(), f.test(), on, f.message()).toString());
        }
        return b.toString();
    }

    /**
     * Reads the JSON document out of a pod log (the hostengine or the shell may print lines around it).
     * Empty when the log holds no diagnostic: the diagnostic did not run, which is never a pass.
     */
    static Optional<DcgmDiag> parse(String log) {
        if (log == null) return Optional.empty();
        int start = log.indexOf('{');
        int end = log.lastIndexOf('}');
        if (start < 0 || end <= start) return Optional.empty();
        Document doc;
        try {
            doc = JSON.readValue(log.substring(start, end + 1), Document.class);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        Diagnostic d = doc.diagnostic4() != null ? doc.diagnostic4() : doc.diagnostic3();
        if (d == null || d.categories() == null || d.categories().isEmpty()) return Optional.empty();
        List<Failure> failures = new ArrayList<>();
        int tests = 0;
        for (Category c : d.categories()) {
            for (Test t : c.tests() == null ? List.<Test>of() : c.tests()) {
                tests++;
                boolean any = false;
                for (Result r : t.results() == null ? List.<Result>of() : t.results()) {
                    if (!"fail".equalsIgnoreCase(r.status())) continue;
                    any = true;
                    failures.add(new Failure(c.category(), t.name(), r.entity(), r.message()));
                }
                if (!any && t.summary() != null && "fail".equalsIgnoreCase(t.summary().status())) {
                    failures.add(new Failure(c.category(), t.name(), "the node", t.summary().message()));
                }
            }
        }
        String version = doc.metadata() == null ? null : doc.metadata().version();
        if (d.runtimeError() != null && !d.runtimeError().isBlank()) {
            failures.add(new Failure("runtime", "dcgmi diag", "the node", d.runtimeError()));
        }
        return tests == 0 && failures.isEmpty() ? Optional.empty() : Optional.of(new DcgmDiag(version, List.copyOf(failures), tests));
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Document(@JsonProperty("DCGM Diagnostic") Diagnostic diagnostic4, @JsonProperty("DCGM GPU Diagnostic") Diagnostic diagnostic3,
            @JsonProperty("metadata") Metadata metadata) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Metadata(@JsonProperty("version") String version) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Diagnostic(@JsonProperty("test_categories") List<Category> categories, @JsonProperty("runtime_error") String runtimeError) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Category(@JsonProperty("category") String category, @JsonProperty("tests") List<Test> tests) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Test(@JsonProperty("name") String name, @JsonProperty("results") List<Result> results,
            @JsonProperty("test_summary") Result summary) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Result(@JsonProperty("entity_group") String group, @JsonProperty("entity_id") Integer id,
            @JsonProperty("gpu_id") Integer gpuId, @JsonProperty("status") String status,
            @JsonProperty("warnings") List<Warning> warnings, @JsonProperty("info") Object info) {

        String entity() {
            Integer n = id != null ? id : gpuId;
            return (group == null ? "GPU" : group) + (n == null ? "" : " " + n);
        }

        String message() {
            StringBuilder b = new StringBuilder();
            for (Warning w : warnings == null ? List.<Warning>of() : warnings) {
                if (w.warning() != null && !w.warning().isBlank()) b.append(b.isEmpty() ? "" : " / ").append(w.warning().trim());
            }
            return b.toString();
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Warning(@JsonProperty("warning") String warning, @JsonProperty("error_id") Integer errorId) {}
}
