package io.acceltriage.agent.llm;

import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.output.TokenUsage;
import io.acceltriage.agent.ModelCall;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Accounting: records every round trip of the current run (model, tokens, latency, outcome) and tells
 * the metrics listeners. The chat model is shared and calls its listeners on the caller's thread, so
 * the run being accounted is the one bound to this thread.
 */
final class CallLedger implements ChatModelListener {

    private static final String STARTED = "acceltriage.started";
    private static final ThreadLocal<Run> CURRENT = new ThreadLocal<>();
    private static final java.util.regex.Pattern STATUS_5XX = java.util.regex.Pattern.compile("\\b5\\d\\d\\b");

    private final String model;
    private final Consumer<ModelCall> listeners;

    CallLedger(String model, Consumer<ModelCall> listeners) {
        this.model = model;
        this.listeners = listeners;
    }

    /** The calls of one job (investigate, summarise, chat) on this thread. */
    static final class Run implements AutoCloseable {
        final List<ModelCall> calls = new ArrayList<>();
        final RunGuard guard;
        String purpose;
        /** Why this run was asked for, on each of its calls' records. */
        String reason;

        Run(RunGuard guard, String purpose) {
            this.guard = guard;
            this.purpose = purpose;
        }

        Run begin(String purpose) {
            this.purpose = purpose;
            CURRENT.set(this);
            return this;
        }

        Run because(String reason) {
            this.reason = reason;
            return this;
        }

        /** The last call answered at the wire level but its content was unusable. */
        void markMalformed(String error) {
            if (!calls.isEmpty()) {
                ModelCall c = calls.remove(calls.size() - 1);
                calls.add(new ModelCall(c.model(), c.purpose(), c.tokensIn(), c.tokensOut(), c.latencyMs(), "malformed", error, c.reason()));
            }
        }

        @Override
        public void close() {
            CURRENT.remove();
        }
    }

    @Override
    public void onRequest(ChatModelRequestContext ctx) {
        ctx.attributes().put(STARTED, System.nanoTime());
    }

    @Override
    public void onResponse(ChatModelResponseContext ctx) {
        TokenUsage u = ctx.chatResponse().tokenUsage();
        int in = u == null || u.inputTokenCount() == null ? 0 : u.inputTokenCount();
        int out = u == null || u.outputTokenCount() == null ? 0 : u.outputTokenCount();
        String name = ctx.chatResponse().modelName() == null ? model : ctx.chatResponse().modelName();
        record(new ModelCall(name, purpose(), in, out, elapsed(ctx.attributes().get(STARTED)), "ok", null, reason()), in, out);
    }

    @Override
    public void onError(ChatModelErrorContext ctx) {
        record(new ModelCall(model, purpose(), 0, 0, elapsed(ctx.attributes().get(STARTED)), outcomeOf(ctx.error()),
                shortMessage(ctx.error()), reason()), 0, 0);
    }

    private void record(ModelCall call, int in, int out) {
        Run run = CURRENT.get();
        if (run != null) {
            run.calls.add(call);
            run.guard.spent(in, out);
        }
        try {
            listeners.accept(call);
        } catch (RuntimeException ignored) {
            // Metrics are best effort; an investigation never fails on them.
        }
    }

    private static String purpose() {
        Run run = CURRENT.get();
        return run == null ? "unknown" : run.purpose;
    }

    private static String reason() {
        Run run = CURRENT.get();
        return run == null ? null : run.reason;
    }

    private static long elapsed(Object started) {
        return started instanceof Long s ? (System.nanoTime() - s) / 1_000_000 : 0;
    }

    /** Timeout, rate-limited (429), server-error (5xx), or error: what an operator needs to tell them apart. */
    static String outcomeOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String type = c.getClass().getSimpleName().toLowerCase();
            String msg = String.valueOf(c.getMessage()).toLowerCase();
            if (type.contains("timeout") || msg.contains("timed out") || msg.contains("timeout")) return "timeout";
            if (type.contains("ratelimit") || msg.contains("429") || msg.contains("too many requests")) return "rate-limited";
            if (type.contains("internalserver") || STATUS_5XX.matcher(msg).find()) return "server-error";
        }
        return "error";
    }

    static String shortMessage(Throwable t) {
        String m = t.getClass().getSimpleName() + ": " + t.getMessage();
        return m.length() > 300 ? m.substring(0, 300) + "…" : m;
    }
}
