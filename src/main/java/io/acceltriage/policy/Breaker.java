package io.acceltriage.policy;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The circuit breaker: once tripped, every action escalates until a person resets it. It never
 * resets itself: a fleet-wide fault that tripped it is exactly when the agent must stop.
 */
public interface Breaker {

    record Trip(Instant at, String reason) {}

    Optional<Trip> tripped();

    /** Trips the breaker; true when this call tripped it (false when it already was). */
    boolean trip(String reason);

    /** Resets it on a person's word; true when it was tripped. */
    boolean reset(String by);

    /** A breaker that lives as long as the process: replay and unit tests. */
    static Breaker inMemory() {
        AtomicReference<Trip> state = new AtomicReference<>();
        return new Breaker() {
            @Override
            public Optional<Trip> tripped() {
                return Optional.ofNullable(state.get());
            }

            @Override
            public boolean trip(String reason) {
                return state.compareAndSet(null, new Trip(Instant.now(), reason));
            }

            @Override
            public boolean reset(String by) {
                return state.getAndSet(null) != null;
            }
        };
    }
}
