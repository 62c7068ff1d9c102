package io.acceltriage.scenario;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.ModelRun;
import io.acceltriage.diagnosis.Family;
import java.io.PrintWriter;
import java.util.List;

/**
 * The model's score over replayed scenarios, beside the rules': family and proposal accuracy, how
 * often it disagreed with the rules or failed over to them, and round trips and tokens per incident.
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

    /** Adds one scenario: what it expects, and the model-reviewed outcome judged against it. */
    public ScenarioLine add(String expectedFamily, Replay.Outcome outcome, ReplayResult judged) {
        scenarios++;
        Family family = modelFamily(outcome.assessments());
        boolean right = family.wireName().equals(expectedFamily);
        if (right) familyRight++;
        if (judged.proposalsRight()) proposalsRight++;
        int trips = 0;
        long tokens = 0;
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
            tokens += m.tokensIn() + m.tokensOut();
            if (m.fallback() != null) {
                fallbacks++;
                fallback = m.fallback();
            } else if (Boolean.FALSE.equals(m.agreesWithRules())) {
                disagreements++;
            }
        }
        return new ScenarioLine(family.wireName(), right, judged.proposalsRight(), trips, tokens, fallback);
    }

    public record ScenarioLine(String family, boolean familyRight, boolean proposalsRight, int roundTrips, long tokens, String fallback) {
        @Override
        public String toString() {
            return "model: family " + family + (familyRight ? "" : " (wrong)") + ", proposals " + (proposalsRight ? "right" : "wrong")
                    + ", " + roundTrips + " round trips, " + tokens + " tokens" + (fallback == null ? "" : ", fell back: " + fallback);
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

    public void report(PrintWriter out, String model) {
        if (scenarios == 0) return;
        out.printf("model %s: family accuracy %.1f%% (%d/%d), proposal accuracy %.1f%% (%d/%d), %d disagreements, %d fallbacks%n",
                model, 100.0 * familyRight / scenarios, familyRight, scenarios, 100.0 * proposalsRight / scenarios, proposalsRight,
                scenarios, disagreements, fallbacks);
        if (incidents > 0) {
            out.printf("model %s: %.2f round trips per incident (max %d), %.0f tokens in and %.0f out per incident, over %d incidents%n",
                    model, (double) roundTrips / incidents, maxRoundTrips, (double) tokensIn / incidents, (double) tokensOut / incidents,
                    incidents);
        }
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
