package io.acceltriage.agent.llm;

import io.acceltriage.agent.ModelCall;

/**
 * Told of every model round trip as it ends, for metrics. Implement it as a CDI bean; every bean is
 * called. A listener must not throw: accounting never stops an investigation.
 */
public interface ModelCallListener {
    void onModelCall(ModelCall call);
}
