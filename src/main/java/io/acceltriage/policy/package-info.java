/**
 * Stage 7, policy: the policy file and its hot reload, the engine that gives every proposal a verdict with the deciding rule (scopes, opt-outs, budgets, blast-radius caps, approvals), and the circuit breaker.
 */
package io.acceltriage.policy;
