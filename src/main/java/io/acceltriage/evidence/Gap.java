package io.acceltriage.evidence;

/**
 * A source that could not be read: missing data is itself evidence, and a reason to be careful.
 * {@code failed}: the source did not answer (an API error, a timeout, an exporter down), so what it
 * would have said is unknown; false when the source answered that the thing is not there (a pod gone).
 */
public record Gap(Source source, String reason, boolean failed) {

    /** A source that did not answer. */
    public Gap(Source source, String reason) {
        this(source, reason, true);
    }

    /** The source answered: what was asked for does not exist. */
    public static Gap absent(Source source, String reason) {
        return new Gap(source, reason, false);
    }
}
