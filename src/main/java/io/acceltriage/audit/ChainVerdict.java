package io.acceltriage.audit;

/** The result of walking the chain: intact, or the first record that breaks it and how. */
public record ChainVerdict(boolean intact, long records, Long brokenAt, String problem) {

    static ChainVerdict intact(long records) {
        return new ChainVerdict(true, records, null, null);
    }

    static ChainVerdict broken(long records, long seq, String problem) {
        return new ChainVerdict(false, records, seq, problem);
    }
}
