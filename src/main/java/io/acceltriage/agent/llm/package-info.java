/**
 * The optional LLM agent, on LangChain4j (quarkus-langchain4j-openai): any OpenAI-compatible endpoint,
 * configured by ACCELTRIAGE_LLM_BASE_URL, ACCELTRIAGE_LLM_API_KEY and ACCELTRIAGE_LLM_MODEL. Unset
 * (the embedded default) the service runs in rules mode and never builds a client.
 *
 * <p>Flow: the Responder gathers evidence, classifies and plans with the rules, judges the plan, then
 * hands that assessment to the model. Live, {@link io.acceltriage.agent.llm.ModelAgent#respond} asks
 * it only where it adds something ({@code ModelScope}): an investigation when the rules are unsure
 * (confidence below 0.7) or find no fault beside a visibly broken workload, and the human summary of
 * every incident (one round trip, over the rules' verdicts: it cannot change a decision). Replay
 * ({@code eval --llm}) uses {@link io.acceltriage.agent.llm.ModelAgent#review}, an investigation of
 * every scenario, to measure the model. An investigation is one conversation (the rules' findings
 * and the evidence they cite in the first message, the rest by id; read-only tools and
 * propose_mitigation available) and one summary: two or three round trips.
 *
 * <p>Guardrails, one class each: {@code OutboundText} (secrets out of everything sent, through the one {@code evidence.Redactor}, each redaction
 * audited), {@code UntrustedData} (labelled envelope around everything read from the world),
 * {@code ScopeGuard} (proposals only on the incident's own node, pods and workloads or the rules'
 * candidates), {@code FamilyCrossCheck} (disagreement with the rules: nothing runs, escalate with both
 * views), {@code CitationCheck} (summaries cite existing evidence, else the template is used),
 * {@code RunGuard} (loops, steps, tokens, seconds). Any failure of the model (timeout, 429, 5xx,
 * malformed output) or a tripped guard returns the rules' assessment unchanged, with the reason.
 *
 * <p>The chat model is built programmatically ({@code ModelAgent.build}) rather than injected, so
 * tests and the benchmark point an agent at a scripted OpenAI-compatible server on loopback in the
 * default test profile. Benchmark (not in the default run):
 * {@code ./mvnw -o test -Dtest=ModelBenchmarkTest -Dacceltriage.benchmark=true}. Accuracy against a
 * real model: {@code acceltriage eval --llm src/test/resources/scenarios}.
 */
package io.acceltriage.agent.llm;
