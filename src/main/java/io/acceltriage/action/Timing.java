package io.acceltriage.action;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * How long mitigations wait: for an eviction a PodDisruptionBudget blocks, for an extra replica to
 * turn Ready, and for verification. Bounded everywhere, so one stuck action cannot stall triage.
 */
public record Timing(Duration evictionTimeout, Duration scaleUpWait, Duration verifyTimeout, Duration poll) {

    /** NVSentinel's eviction timeout is 60 s; verification gets as long. */
    public static final Timing DEFAULT = new Timing(Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofSeconds(60),
            Duration.ofSeconds(1));

    /** Polls {@code done} until it holds or {@code timeout} passes; true when it held. */
    boolean until(Duration timeout, BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (done.getAsBoolean()) return true;
            if (System.nanoTime() >= deadline) return false;
            try {
                Thread.sleep(Math.max(10, Math.min(poll.toMillis(), (deadline - System.nanoTime()) / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
