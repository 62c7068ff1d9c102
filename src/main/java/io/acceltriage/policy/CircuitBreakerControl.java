package io.acceltriage.policy;

/**
 * The circuit breaker as people see it from chat: whether it tripped, and the reset that only a
 * person named in the policy may do. The breaker stays tripped until someone resets it.
 */
public interface CircuitBreakerControl {

    boolean tripped();

    /** Resets the breaker; {@code by} is the person, as the audit log names them. */
    void reset(String by);
}
