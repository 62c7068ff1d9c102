package io.acceltriage.policy;

/**
 * The stored breaker as pages, chat and /metrics see it. It reads the breaker on every call rather
 * than caching: another replica, or the REST reset, may have changed it since.
 */
public final class BreakerControl implements CircuitBreakerControl {

    private final Breaker breaker;

    public BreakerControl(Breaker breaker) {
        this.breaker = breaker;
    }

    @Override
    public boolean tripped() {
        return breaker.tripped().isPresent();
    }

    /** Audited by the breaker itself, in the transaction of the reset, with {@code by} as the actor. */
    @Override
    public void reset(String by) {
        breaker.reset(by);
    }
}
