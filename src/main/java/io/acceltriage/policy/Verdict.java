package io.acceltriage.policy;

import java.util.List;

/** A decision with the rule that made it and the reasons a reader needs. */
public record Verdict(Decision decision, String rule, List<String> reasons, boolean dryRun) {

    static Verdict allow(String rule, List<String> reasons, boolean dryRun) {
        return new Verdict(Decision.ALLOW, rule, reasons, dryRun);
    }

    static Verdict approve(String rule, List<String> reasons) {
        return new Verdict(Decision.APPROVE, rule, reasons, false);
    }

    static Verdict deny(String rule, String reason) {
        return new Verdict(Decision.DENY, rule, List.of(reason), false);
    }
}
