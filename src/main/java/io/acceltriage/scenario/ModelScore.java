package io.acceltriage.scenario;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.ModelRun;
import io.acceltriage.diagnosis.Family;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * The model's score over replayed scenarios, beside the rules': family and proposal accuracy, how
 * often it disagreed with the rules or failed over to them, and round trips, tokens and seconds per
 * incident.
 * Used by {@code eval --llm} and by the benchmark.
 */
public final class ModelScore {

    private int scenarios;
    private int familyRight;
    private int proposalsRight;
    private int disagreements;
    private int fallbacks;
    private int incidents;
    private long roundTrips;
    private long tokensIn;
    private long tokensOut;
    private int maxRoundTrips;
    private long nanos;
    private int rulesScenarios;
    private int rulesFamilyRight;
    private int rulesProposalsRight;
    private int rulesIncidents;
    private long rulesNanos;

    /** One replay of a scenario: the outcome, judged against the scenario, and how long it took. */
    public record Run(Replay.Outcome outcome, ReplayResult judged, Duration took) {}

    /**
     * Adds one scenario: what it expects, its replay through the model judged against it, and its
     * replay by the rules alone ({@code rules}, or null), for the report side by side.
     */
    public ScenarioLine add(String expectedFamily, Run model, Run rules) {
        if (rules != null) {
            rulesScenarios++;
            if (rules.judged().familyRight()) rulesFamilyRight++;
            if (rules.judged().proposalsRight()) rulesProposalsRight++;
            rulesIncidents += rules.outcome().assessments().size();
            rulesNanos += rules.took().toNanos();
        }
        nanos += model.took().toNanos();
        Replay.Outcome outcome = model.outcome();
        ReplayResult judged = model.judged();
        scenarios++;
        Family family = modelFamily(outcome.assessments());
        boolean right = family.wireName().equals(expectedFamily);
        if (right) familyRight++;
        if (judged.proposalsRight()) proposalsRight++;
        int trips = 0;
        long in = 0;
        long out = 0;
        String fallback = null;
        for (Assessment a : outcome.assessments()) {
            ModelRun m = a.model();
            if (m == null) continue;
            incidents++;
            roundTrips += m.roundTrips();
            trips += m.roundTrips();
            maxRoundTrips = Math.max(maxRoundTrips, m.roundTrips());
            tokensIn += m.tokensIn();
            tokensOut += m.tokensOut();
            in += m.tokensIn();
            out += m.tokensOut();
            if (m.fallback() != null) {
                fallbacks++;
                fallback = m.fallback();
            } else if (Boolean.FALSE.equals(m.agreesWithRules())) {
                disagreements++;
            }
        }
        return new ScenarioLine(family.wireName(), right, judged.proposalsRight(), trips, in, out, model.took(), rules, fallback);
    }

    /** One scenario's line: the model's result, and beside it the rules' ({@code rules} null: not replayed by the rules here). */
    public record ScenarioLine(String family, boolean familyRight, boolean proposalsRight, int roundTrips, long tokensIn,
            long tokensOut, Duration took, Run rules, String fallback) {
        @Override
        public String toString() {
            String line = "model: family " + family + (familyRight ? "" : " (wrong)") + ", proposals " + (proposalsRight ? "right" : "wrong")
                    + ", " + roundTrips + " round trips, " + tokensIn + " tokens in, " + tokensOut + " out, " + seconds(took.toNanos()) + " s";
            if (rules != null) {
                line += " | rules: family " + rules.judged().family() + (rules.judged().familyRight() ? "" : " (wrong)") + ", proposals "
                        + (rules.judged().proposalsRight() ? "right" : "wrong") + ", " + seconds(rules.took().toNanos()) + " s";
            }
            return line + (fallback == null ? "" : ", fell back: " + fallback);
        }
    }

    /** The model's family for a scenario: the most confident subject's, the rules' where the model fell back. */
    static Family modelFamily(List<Assessment> assessments) {
        return assessments.stream()
                .map(a -> a.model() != null && a.model().family() != null ? Family.parse(a.model().family()) : a.diagnosis().family())
                .filter(f -> f != Family.NONE)
                .findFirst()
                .orElse(Family.NONE);
    }

    /**
     * The totals: the model's family and proposal accuracy, round trips, tokens and seconds per
     * incident, and the rules' own result over the same scenarios beside them when they were replayed.
     */
    public void report(PrintWriter out, String model) {
        if (scenarios == 0) return;
        boolean rules = rulesScenarios > 0;
        String header = "model " + model;
        String row = "%-27s %-22s" + (rules ? " %s" : "") + "%n";
        out.printf(row, "over " + scenarios + " scenarios", header, "rules");
        out.printf(row, "family accuracy", percent(familyRight, scenarios), percent(rulesFamilyRight, rulesScenarios));
        out.printf(row, "proposals right", percent(proposalsRight, scenarios), percent(rulesProposalsRight, rulesScenarios));
        out.printf(row, "incidents", incidents, rulesIncidents);
        out.printf(row, "round trips per incident", String.format("%.2f (max %d)", roundTripsPerIncident(), maxRoundTrips), "0");
        out.printf(row, "input tokens per incident", String.format("%.0f", tokensInPerIncident()), "0");
        out.printf(row, "output tokens per incident", String.format("%.0f", incidents == 0 ? 0.0 : (double) tokensOut / incidents), "0");
        out.printf(row, "seconds per incident", seconds(incidents == 0 ? 0 : nanos / incidents),
                seconds(rulesIncidents == 0 ? 0 : rulesNanos / rulesIncidents));
        out.printf("model %s: %d disagreements with the rules, %d fallbacks to them%n", model, disagreements, fallbacks);
    }

    private static String percent(int right, int of) {
        return String.format("%.1f%% (%d/%d)", of == 0 ? 0.0 : 100.0 * right / of, right, of);
    }

    private static String seconds(long nanos) {
        return String.format("%.2f", nanos / 1e9);
    }

    /** Input tokens per incident the model saw, over everything added: the figure a self-hosted model's context must hold. */
    public double tokensInPerIncident() {
        return incidents == 0 ? 0 : (double) tokensIn / incidents;
    }

    public int maxRoundTrips() {
        return maxRoundTrips;
    }

    public double roundTripsPerIncident() {
        return incidents == 0 ? 0 : (double) roundTrips / incidents;
    }

    public int incidents() {
        return incidents;
    }

    public int fallbacks() {
        return fallbacks;
    }
}
