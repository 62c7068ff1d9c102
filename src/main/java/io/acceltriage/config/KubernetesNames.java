package io.acceltriage.config;

import java.util.regex.Pattern;

/**
 * What Kubernetes accepts as a name, checked wherever a name from outside (an alert label, a chat
 * command, an MCP argument, a sandbox fault) will end up in an API path or a PromQL selector: anything
 * else could address another resource.
 */
public final class KubernetesNames {

    /** Kubernetes' own limit for an object name (a DNS-1123 subdomain). */
    public static final int MAX_NAME = 253;
    /** A DNS-1123 label (a namespace) is at most 63 characters. */
    public static final int MAX_LABEL = 63;

    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private KubernetesNames() {}

    /** A node, pod or workload name: a DNS-1123 subdomain. */
    public static boolean isName(String s) {
        return s != null && s.length() <= MAX_NAME && SUBDOMAIN.matcher(s).matches();
    }

    /** A namespace: a DNS-1123 label. */
    public static boolean isNamespace(String s) {
        return s != null && s.length() <= MAX_LABEL && LABEL.matcher(s).matches();
    }
}
