package io.acceltriage.policy;

/**
 * The circuit breaker as people see it: whether it has tripped (no more cordons or drains until a
 * person looks), and the reset, which names who did it.
 */
public interface CircuitBreakerControl {

    boolean tripped();

    void reset(String by);
}
