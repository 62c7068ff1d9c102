package io.acceltriage.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Only what Kubernetes itself accepts passes: a name that could address another resource never does. */
class KubernetesNamesTest {

    @Test
    void nodePodAndWorkloadNamesAreDns1123Subdomains() {
        assertTrue(KubernetesNames.isName("gpu-h100-03"));
        assertTrue(KubernetesNames.isName("ip-10-0-1-17.ec2.internal"));
        assertTrue(KubernetesNames.isName("a".repeat(253)));
        for (String bad : new String[] {"../../api/v1/sandbox/nodes?", "GPU-node", "a..b", "-a", "a-", "", "a/b", "a".repeat(254)}) {
            assertFalse(KubernetesNames.isName(bad), bad);
        }
        assertFalse(KubernetesNames.isName(null));
    }

    @Test
    void namespacesAreDns1123LabelsWithoutDots() {
        assertTrue(KubernetesNames.isNamespace("ml-train"));
        assertTrue(KubernetesNames.isNamespace("a".repeat(63)));
        assertFalse(KubernetesNames.isNamespace("ml.train"));
        assertFalse(KubernetesNames.isNamespace("a".repeat(64)));
        assertFalse(KubernetesNames.isNamespace(null));
    }
}
