package io.acceltriage.audit;

/**
 * The result of walking the chain: intact, or the first record that breaks it and how.
 * {@code prunedThrough}: the chain starts after this record because retention deleted the ones up to it.
 */
public record ChainVerdict(boolean intact, long records, Long brokenAt, String problem, Long prunedThrough) {

    static ChainVerdict intact(long records, Long prunedThrough) {
        return new ChainVerdict(true, records, null, null, prunedThrough);
    }

    static ChainVerdict broken(long records, long seq, String problem, Long prunedThrough) {
        return new ChainVerdict(false, records, seq, problem, prunedThrough);
    }
}
