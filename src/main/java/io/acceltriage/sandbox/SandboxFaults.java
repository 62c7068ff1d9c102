package io.acceltriage.sandbox;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;

/**
 * Faults for a caller inside the service (the drills): injected and delivered to the alert webhook as
 * {@code POST /api/v1/sandbox/faults} does, and the alert's resolution delivered when the drill ends.
 */
@ApplicationScoped
public class SandboxFaults {

    /** The alert a fault fired, and whether the webhook took it ({@code error} says why not). */
    public record Delivered(FiredAlert alert, boolean delivered, String error) {}

    private final Sandbox sandbox;
    private final AlertWebhook webhook;

    SandboxFaults(Sandbox sandbox, AlertWebhook webhook) {
        this.sandbox = sandbox;
        this.webhook = webhook;
    }

    /** Throws IllegalArgumentException when the fault does not fit the fleet (the message says why). */
    public Delivered inject(Fault fault) {
        FiredAlert alert = sandbox.inject(fault);
        AlertWebhook.Delivery d = webhook.deliver(alert);
        return new Delivered(alert, d.delivered(), d.error());
    }

    /** Alertmanager's "resolved" for an alert that fired: same labels and start, ended now. */
    public Delivered resolve(FiredAlert fired) {
        FiredAlert resolved = new FiredAlert("resolved", fired.labels(), fired.annotations(), fired.startsAt(), Instant.now().toString(),
                fired.generatorURL(), fired.fingerprint());
        AlertWebhook.Delivery d = webhook.deliver(resolved);
        return new Delivered(resolved, d.delivered(), d.error());
    }

    /** Puts back the seeded world. */
    public void reset() {
        sandbox.reset();
    }
}
