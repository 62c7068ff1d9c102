package io.acceltriage.metrics;

import io.acceltriage.agent.ModelCall;
import io.acceltriage.agent.llm.ModelCallListener;
import jakarta.enterprise.context.ApplicationScoped;

/** Counts every model round trip and its tokens in the service's own metrics. */
@ApplicationScoped
class ModelCallMetrics implements ModelCallListener {

    private final ServiceMetrics metrics;

    ModelCallMetrics(ServiceMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void onModelCall(ModelCall call) {
        metrics.modelCall(call.model(), call.outcome());
        metrics.modelTokens(call.model(), call.tokensIn(), call.tokensOut());
    }
}
