package io.acceltriage.triage;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.Judgement;
import io.acceltriage.policy.ActionHistory;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.PolicyEngine;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Tx;
import io.acceltriage.store.WorkLock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The part of a decision that must not run beside another: allowed actions confirmed against what other
 * triages planned and have not applied yet, and recorded PLANNED, in one transaction that holds the locks of
 * their pools and workloads. Triages run in parallel (several workers, several replicas); without this two of
 * them could each see room for one more cordon in a pool and both take it.
 */
final class ActionPlans {

    /** What is read before the transaction, which holds locks: the locks' names. */
    record Prepared(List<Judgement> judgements, List<String> locks) {}

    /** The judgements as confirmed, and why each verdict that no longer held was refused. */
    record Confirmed(List<Judgement> judgements, List<String> refused) {}

    private final Executor executor;
    private final PolicyEngine policy;

    ActionPlans(Executor executor, PolicyEngine policy) {
        this.executor = executor;
        this.policy = policy;
    }

    Prepared prepare(List<Judgement> judgements) {
        Set<String> locks = new TreeSet<>();
        for (Judgement j : judgements) {
            if (j.verdict().decision() == Decision.ALLOW && !j.verdict().dryRun()) locks.addAll(policy.locks(j.proposal()));
        }
        return new Prepared(List.copyOf(judgements), List.copyOf(locks));
    }

    /**
     * Holds the prepared locks until {@code tx} ends and confirms each allowed, not yet recorded action's verdict
     * ({@link PolicyEngine#confirm}); a verdict that no longer holds is a refusal, and a reason for a person.
     */
    Confirmed confirm(Tx tx, String incidentId, Prepared prepared) {
        prepared.locks().forEach(name -> WorkLock.holdMade(tx, name));
        if (prepared.locks().isEmpty()) return new Confirmed(prepared.judgements(), List.of());
        List<ActionHistory.Past> unapplied = executor.unapplied(tx);
        List<Judgement> judgements = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Judgement j : prepared.judgements()) {
            Verdict v = j.verdict();
            if (v.decision() == Decision.ALLOW && executor.recorded(tx, incidentId, j.proposal()).isEmpty()) {
                v = policy.confirm(j.proposal(), v, unapplied);
                if (v.decision() == Decision.DENY) {
                    refused.add("policy refused " + j.proposal().name() + ": " + String.join("; ", v.reasons()));
                }
            }
            judgements.add(v == j.verdict() ? j : new Judgement(j.proposal(), v));
        }
        return new Confirmed(List.copyOf(judgements), List.copyOf(refused));
    }

    /** Records the confirmed assessment's actions in {@code tx} (all but refusals); PLANNED ones are claimed for this process. */
    List<ActionRecord> record(Tx tx, String incidentId, List<Judgement> confirmed) {
        List<ActionRecord> out = new ArrayList<>();
        for (Judgement j : confirmed) {
            if (j.verdict().decision() != Decision.DENY) out.add(executor.plan(tx, incidentId, j.proposal(), j.verdict()));
        }
        return out;
    }
}
