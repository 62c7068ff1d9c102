package io.acceltriage.scenario;

import java.util.List;

/** How one scenario replayed: what the responder concluded and what differed from the expectation. */
public record ReplayResult(String name, String expectedFamily, String family, boolean familyRight, boolean proposalsRight,
        List<String> problems, List<String> proposals, List<String> explanation) {

    public boolean passed() {
        return problems.isEmpty();
    }
}
