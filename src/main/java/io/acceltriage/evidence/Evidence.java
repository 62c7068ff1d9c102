package io.acceltriage.evidence;

/**
 * One cited observation. Diagnoses and summaries refer to it by {@code id}; {@code trust} says who could
 * have written it (a record stored before trust was kept reads as the trust its fact has by kind).
 */
public record Evidence(String id, Source source, String summary, Fact fact, Trust trust) {

    public Evidence {
        if (trust == null) trust = fact == null ? Trust.TENANT : Trust.of(fact);
    }

    public Evidence(String id, Source source, String summary, Fact fact) {
        this(id, source, summary, fact, null);
    }

    public boolean platform() {
        return trust == Trust.PLATFORM;
    }
}
