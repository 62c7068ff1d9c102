package io.acceltriage.evidence;

/**
 * A fact before it gets its evidence id (ids are given once every source has answered). {@code trust}
 * null: the trust the fact has by kind; {@code origin}: where a metric series was scraped from (its
 * {@code instance}), when the source says.
 */
record Observation(Source source, String summary, Fact fact, Trust trust, String origin) {

    Observation(Source source, String summary, Fact fact) {
        this(source, summary, fact, null, null);
    }

    Observation withTrust(Trust t, String note) {
        return new Observation(source, note == null ? summary : summary + " " + note, fact, t, origin);
    }
}
