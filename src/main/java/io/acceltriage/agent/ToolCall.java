package io.acceltriage.agent;

/**
 * One tool the model called during a run: which, with what arguments, how it ended ({@code ok},
 * {@code refused}: outside the tool's schema, nothing was run; {@code error}: the source failed) and
 * what the model read back, redacted and cut to a bound. Audited as a {@code model.tool} record.
 */
public record ToolCall(String tool, String arguments, String outcome, String result) {}
