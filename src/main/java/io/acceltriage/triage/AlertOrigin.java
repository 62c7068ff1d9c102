package io.acceltriage.triage;

import io.acceltriage.incident.Alert;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where an alert's rule was evaluated. prometheus-operator lets a tenant write its own PrometheusRule in its namespace
 * (selected by ruleNamespaceSelector) or run its own Prometheus; Alertmanager then carries that alert like any other.
 * The evaluating Prometheus shows in the alert: its generatorURL names its service ({@code <svc>.<namespace>.svc}), and
 * prometheus-operator's external label {@code prometheus: <namespace>/<name>} names it. An alert from a Prometheus in a
 * namespace that is not the platform's is the tenant's text: it may raise suspicion (a person hears of it), never by
 * itself fence shared hardware (the evidence gathered independently decides what is done).
 */
final class AlertOrigin {

    private final Set<String> platformNamespaces;

    AlertOrigin(List<String> platformNamespaces) {
        this.platformNamespaces = Set.copyOf(platformNamespaces);
    }

    /** The tenant namespace whose Prometheus evaluated the alert's rule, when it is not the platform's. */
    Optional<String> tenantNamespace(Alert a) {
        return namespaceOf(a).filter(ns -> !platformNamespaces.contains(ns));
    }

    /** What a person is told about the incident's tenant-evaluated alerts (none when every alert is the platform's). */
    List<String> escalations(List<Alert> alerts) {
        return alerts.stream().flatMap(a -> tenantNamespace(a).stream().map(ns -> "alert " + a.name()
                + " was evaluated by a Prometheus in tenant namespace " + ns + " (" + (a.generatorUrl() == null ? "label prometheus"
                : "generatorURL " + host(a.generatorUrl()).orElse(a.generatorUrl())) + "), not by the platform's monitoring: its claim"
                + " is the tenant's text and fences nothing; a person checks who wrote the rule and whether the fault is real"))
                .distinct().toList();
    }

    /** The namespace of the Prometheus that evaluated the alert: its {@code prometheus} label, else its generatorURL's service host. */
    static Optional<String> namespaceOf(Alert a) {
        String p = a.label("prometheus");
        if (p != null && p.indexOf('/') > 0) return Optional.of(p.substring(0, p.indexOf('/')));
        return Optional.ofNullable(a.generatorUrl()).flatMap(AlertOrigin::host).flatMap(h -> {
            // <service>.<namespace>.svc[.cluster.local]: the in-cluster DNS name of a Service.
            String[] parts = h.split("\\.");
            return parts.length >= 3 && "svc".equals(parts[2]) ? Optional.of(parts[1]) : Optional.empty();
        });
    }

    private static Optional<String> host(String url) {
        try {
            return Optional.ofNullable(URI.create(url.trim()).getHost());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
