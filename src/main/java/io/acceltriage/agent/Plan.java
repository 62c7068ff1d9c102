package io.acceltriage.agent;

import io.acceltriage.policy.Proposal;
import java.util.List;

/** What a planner wants done, and why humans must be told (empty: no page). */
public record Plan(List<Proposal> proposals, List<String> escalationReasons) {}
