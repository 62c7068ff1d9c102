package io.acceltriage.testing;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.Map;

/** A training job as the checkpoint tests need it: a StatefulSet of two {@code trainer:1} pods, selected by {@code app=<name>}. */
public final class Trainers {

    private Trainers() {}

    /** The StatefulSet {@code namespace/name}, with these annotations (its last checkpoint, when it reports one). */
    public static StatefulSet statefulSet(String namespace, String name, Map<String, String> annotations) {
        return new StatefulSetBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withAnnotations(annotations).endMetadata()
                .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("train").withImage("trainer:1").endContainer().endSpec().endTemplate()
                .endSpec().build();
    }
}
