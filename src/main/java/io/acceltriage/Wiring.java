package io.acceltriage;

import io.acceltriage.action.Executor;
import io.acceltriage.agent.Responder;
import io.acceltriage.agent.ResponderFactory;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.evidence.ExporterScrape;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.PrometheusConfig;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Sandbox;
import io.acceltriage.store.Database;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** The one place where the stages are wired to each other and to the world (a real cluster or the sandbox). */
@Singleton
class Wiring {

    private static final Logger LOG = Logger.getLogger(Wiring.class);

    @Produces
    @Singleton
    KubernetesClient kubernetesClient(ClusterConfig config, Instance<Sandbox> sandbox) {
        if (config.mode() == ClusterConfig.Mode.SANDBOX) {
            LOG.info("cluster: the sandbox (simulated GPU cluster); set ACCELTRIAGE_CLUSTER_MODE=kubeconfig or in-cluster for a real one");
            return sandbox.get().client();
        }
        KubernetesClient client = new KubernetesClientBuilder().build();
        LOG.infof("cluster: %s (%s)", client.getMasterUrl(), config.mode().name().toLowerCase().replace('_', '-'));
        return client;
    }

    @Produces
    @Singleton
    MetricsSource metricsSource(ClusterConfig config, Instance<Sandbox> sandbox, KubernetesClient client,
            @ConfigProperty(name = "acceltriage.metrics.source", defaultValue = "exporter") String source, PrometheusConfig prometheus) {
        if (!source.strip().equalsIgnoreCase("exporter") && !source.strip().equalsIgnoreCase("prometheus")) {
            throw new IllegalStateException("ACCELTRIAGE_METRICS_SOURCE (acceltriage.metrics.source) must be exporter or prometheus,"
                    + " got \"" + source + "\"");
        }
        if (source.strip().equalsIgnoreCase("prometheus")) {
            PrometheusSource p = PrometheusSource.from(prometheus);
            LOG.infof("metrics: %s", p);
            return p;
        }
        if (config.mode() == ClusterConfig.Mode.SANDBOX) {
            return new ExporterScrape(node -> Optional.ofNullable(sandbox.get().exporterUrl(node)).map(URI::create));
        }
        int port = config.exporterPort();
        // dcgm-exporter runs as a DaemonSet: its pod on the node serves that node's GPUs.
        return new ExporterScrape(node -> client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems()
                .stream()
                .filter(p -> p.getMetadata().getName().contains("dcgm-exporter") && p.getStatus().getPodIP() != null)
                .map(Pod::getStatus).findFirst()
                .map(s -> URI.create("http://" + s.getPodIP() + ":" + port + "/metrics")));
    }

    @Produces
    @Singleton
    Policy policy(@ConfigProperty(name = "acceltriage.policy.file", defaultValue = "policies/default.yaml") String file) {
        Policy policy = Policy.load(file);
        LOG.infof("policy: %s (%s)", policy.metadata() == null ? file : policy.metadata().name(), file);
        return policy;
    }

    @Produces
    @Singleton
    Responder responder(ResponderFactory factory, KubernetesClient client, MetricsSource metrics, Policy policy) {
        return factory.build(client, metrics, policy);
    }

    @Produces
    @Singleton
    Executor executor(KubernetesClient client, Database database, AuditLog audit) {
        return new Executor(client, database, audit);
    }
}
