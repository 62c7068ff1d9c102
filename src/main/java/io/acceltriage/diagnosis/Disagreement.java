package io.acceltriage.diagnosis;

import java.util.List;

/**
 * Two kinds of source reading one incident differently: a fact the rules cannot settle by weighing
 * (they count reasons, they do not reconcile witnesses), so the live service asks the model to look
 * into it. {@code detail} says who says what; {@code evidenceIds} cites both sides.
 */
public record Disagreement(Between between, String detail, List<String> evidenceIds) {

    public Disagreement {
        evidenceIds = List.copyOf(evidenceIds);
    }

    public enum Between {
        /**
         * Device health as Kubernetes reports it (allocatable below capacity, KEP-4680
         * {@code allocatedResourcesStatus}, node-agent conditions, DRA device taints) against the
         * exporter's readings of the same node or device.
         */
        KUBERNETES_AND_EXPORTER,
        /** Platform sources and tenant sources (a workload's logs, crashes, events) point at different families. */
        PLATFORM_AND_TENANT
    }
}
