/**
 * Stage 6, agent: the no-model planner that turns a diagnosis into proposals, and the records of a triage's outcome (assessment, judgements, the model's run, the stored read model). The optional model path is agent.llm.
 */
package io.acceltriage.agent;
