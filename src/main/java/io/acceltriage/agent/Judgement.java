package io.acceltriage.agent;

import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;

/** A proposal with the verdict policy gave it. */
public record Judgement(Proposal proposal, Verdict verdict) {}
