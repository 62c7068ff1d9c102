package io.acceltriage.action;

import io.acceltriage.store.Tx;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.policy.Breaker;
import io.acceltriage.policy.Policy;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Approvals as the policy names them: only a listed approver decides; an action waits at most the
 * policy's {@code approvals.expireAfter}; its preconditions are checked again at approval time (the
 * world may have moved while it waited); an approved action runs through the executor like any other.
 * Every decision, and every refusal, is audited.
 */
public final class PolicyApprovals implements Approvals {

    private final Executor executor;
    private final Supplier<Policy> policy;
    private final Breaker breaker;
    private final Clock clock;
    private final java.util.function.Consumer<String> outcomes;

    public PolicyApprovals(Executor executor, Supplier<Policy> policy, Breaker breaker, Clock clock) {
        this(executor, policy, breaker, clock, outcome -> { });
    }

    /** {@code outcomes} hears "approved", "rejected" or "refused" for every decision, for the service's metrics. */
    public PolicyApprovals(Executor executor, Supplier<Policy> policy, Breaker breaker, Clock clock,
            java.util.function.Consumer<String> outcomes) {
        this.outcomes = outcomes;
        this.executor = executor;
        this.policy = policy;
        this.breaker = breaker;
        this.clock = clock;
    }

    @Override
    public Result approve(String actionId, String approver) {
        Result r = approveOnce(actionId, approver);
        outcomes.accept(r.accepted() ? "approved" : "refused");
        return r;
    }

    @Override
    public Result reject(String actionId, String approver, String reason) {
        Result r = rejectOnce(actionId, approver, reason);
        outcomes.accept(r.accepted() ? "rejected" : "refused");
        return r;
    }

    /** How long an approving request waits for the incident's first response before leaving the action to the loop. */
    private static final java.time.Duration FIRST_RESPONSE_WAIT = java.time.Duration.ofSeconds(60);

    private Result approveOnce(String actionId, String approver) {
        Optional<Result> refused = screen(actionId, approver, "approve");
        if (refused.isPresent()) return refused.get();
        ActionRecord r = executor.find(actionId).orElseThrow();
        Optional<Breaker.Trip> trip = breaker.tripped();
        if (trip.isPresent()) {
            return new Result(false, actionId, r.status(), "the circuit breaker is tripped (" + trip.get().reason()
                    + "); reset it first (POST /api/v1/breaker/reset), then approve again");
        }
        // The incident's first response still running on the executor's workers goes first (bounded: then the loop runs it).
        executor.awaitFirstResponse(r, FIRST_RESPONSE_WAIT);
        // A later step of a repair approved early is kept: its preconditions are checked when it runs.
        Optional<String> waiting = executor.waitsFor(r);
        Optional<String> unmet = waiting.isPresent() ? Optional.empty() : executor.unmet(r);
        if (unmet.isPresent()) {
            String why = "precondition " + unmet.get() + " no longer holds";
            Optional<ActionRecord> skipped = finish(r, ActionStatus.SKIPPED, approver, "approved by " + approver + " but " + why,
                    "approved", null);
            return new Result(false, actionId, skipped.map(ActionRecord::status).orElse(r.status()),
                    "approved, but not run: " + why);
        }
        String uid = executor.capture(r.kind(), r.target());
        Optional<ActionRecord> planned = executor.database().transaction(tx -> {
            Optional<ActionRecord> moved = executor.store().transition(tx, r, ActionStatus.AWAITING_APPROVAL, ActionStatus.PLANNED,
                    r.detail() + "; approved by " + approver, uid);
            if (moved.isPresent()) {
                executor.audit().append(tx, r.incidentId(), AuditKind.APPROVAL, approver, decision(moved.get(), "approved", approver, null));
                executor.audit().append(tx, r.incidentId(), AuditKind.ACTION_STARTED, approver, Executor.payload(moved.get(), null));
            }
            return moved;
        });
        if (planned.isEmpty()) {
            ActionRecord now = executor.find(actionId).orElse(r);
            return new Result(false, actionId, now.status(), "someone else decided first: the action is now "
                    + now.status().name().toLowerCase());
        }
        if (!executor.leads()) {
            return new Result(true, actionId, ActionStatus.PLANNED, "approved; the replica holding the lease runs it");
        }
        ActionRecord done = executor.run(planned.get());
        if (done.status() == ActionStatus.PLANNED && waiting.isPresent()) {
            return new Result(true, actionId, ActionStatus.PLANNED, "approved; it runs once the step before it completes ("
                    + waiting.get() + ")");
        }
        return new Result(true, actionId, done.status(), "approved and " + done.status().name().toLowerCase() + ": " + done.detail());
    }

    private Result rejectOnce(String actionId, String approver, String reason) {
        Optional<Result> refused = screen(actionId, approver, "reject");
        if (refused.isPresent()) return refused.get();
        ActionRecord r = executor.find(actionId).orElseThrow();
        String why = reason == null || reason.isBlank() ? "no reason given" : reason;
        Optional<ActionRecord> rejected = finish(r, ActionStatus.REJECTED, approver, "rejected by " + approver + ": " + why,
                "rejected", why);
        if (rejected.isEmpty()) {
            ActionRecord now = executor.find(actionId).orElse(r);
            return new Result(false, actionId, now.status(), "someone else decided first: the action is now "
                    + now.status().name().toLowerCase());
        }
        return new Result(true, actionId, ActionStatus.REJECTED, "rejected; nothing runs");
    }

    /** Expires actions that waited longer than the policy allows. Returns how many. */
    public int expireStale() {
        Instant cutoff = clock.instant().minus(policy.get().approvalExpiry());
        int n = 0;
        for (ActionRecord r : executor.withStatus(ActionStatus.AWAITING_APPROVAL)) {
            Optional<Instant> since = executor.awaitingSince(r);
            if (since.isPresent() && since.get().isBefore(cutoff)
                    && finish(r, ActionStatus.EXPIRED, io.acceltriage.audit.Actors.AGENT, "expired: nobody approved it within "
                            + policy.get().approvalExpiry().toMinutes() + " min", "expired", null).isPresent()) {
                n++;
            }
        }
        return n;
    }

    /** Refuses unknown actions, actions not waiting, expired ones and people who may not approve. */
    private Optional<Result> screen(String actionId, String approver, String verb) {
        Optional<ActionRecord> found = executor.find(actionId);
        if (found.isEmpty()) {
            return Optional.of(new Result(false, actionId, null, "there is no action " + actionId));
        }
        ActionRecord r = found.get();
        List<String> approvers = policy.get().approversOrEmpty();
        if (approver == null || approver.isBlank() || !approvers.contains(approver)) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("action", actionId);
            p.put("attempted", verb);
            p.put("by", approver == null ? "" : approver);
            p.put("reason", "not an approver of policy " + policy.get().name());
            executor.audit().append(r.incidentId(), AuditKind.ACCESS_DENIED, approver == null || approver.isBlank() ? "unknown" : approver, p);
            return Optional.of(new Result(false, actionId, r.status(), "sorry, " + (approver == null || approver.isBlank() ? "an unnamed caller"
                    : approver) + " is not among the approvers of policy " + policy.get().name()
                    + "; ask one of them, or an administrator to add you to its approvers list", Refusal.NOT_AN_APPROVER));
        }
        if (r.status() != ActionStatus.AWAITING_APPROVAL) {
            return Optional.of(new Result(false, actionId, r.status(), "action " + actionId + " is not waiting for approval: it is "
                    + r.status().name().toLowerCase()));
        }
        Optional<Instant> since = executor.awaitingSince(r);
        if (since.isPresent() && since.get().isBefore(clock.instant().minus(policy.get().approvalExpiry()))) {
            finish(r, ActionStatus.EXPIRED, approver, "expired before " + approver + " decided", "expired", null);
            return Optional.of(new Result(false, actionId, ActionStatus.EXPIRED, "action " + actionId + " waited longer than "
                    + policy.get().approvalExpiry().toMinutes() + " min and expired; if it is still needed, the next alert proposes it again"));
        }
        return Optional.empty();
    }

    private Optional<ActionRecord> finish(ActionRecord r, ActionStatus to, String by, String detail, String what, String reason) {
        return executor.database().transaction(tx -> {
            Optional<ActionRecord> moved = executor.store().transition(tx, r, ActionStatus.AWAITING_APPROVAL, to,
                    r.detail() + "; " + detail, r.subjectUid());
            if (moved.isPresent()) {
                executor.audit().append(tx, r.incidentId(), AuditKind.APPROVAL, by, decision(moved.get(), what, by, reason));
            }
            return moved;
        });
    }

    private static Map<String, Object> decision(ActionRecord r, String what, String by, String reason) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("action", r.id());
        p.put("kind", r.kind().wireName());
        p.put("target", r.target());
        p.put("decision", what);
        p.put("by", by);
        if (reason != null) p.put("reason", reason);
        return p;
    }
}
