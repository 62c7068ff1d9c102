/**
 * The optional LLM agent, on LangChain4j (quarkus-langchain4j-openai): any OpenAI-compatible endpoint,
 * configured by ACCELTRIAGE_LLM_BASE_URL, ACCELTRIAGE_LLM_API_KEY and ACCELTRIAGE_LLM_MODEL. Unset
 * (the embedded default) the service runs in rules mode and never builds a client.
 *
 * <p>Flow: the Responder gathers evidence, classifies and plans with the rules, judges the plan, then
 * hands that assessment to {@link io.acceltriage.agent.llm.ModelAgent#review}: one investigation (the
 * bundle is in the first message; read-only tools and propose_mitigation available), one summary.
 * A typical incident takes two or three round trips.
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
