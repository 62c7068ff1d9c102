package io.acceltriage.access;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which routes need which role, in one table. Everything not exempt needs a token or a session:
 * reading needs viewer, changing anything needs approver, unless a rule below says otherwise. A new
 * endpoint is therefore protected without anyone remembering to protect it; AccessRoutesTest walks
 * every JAX-RS resource to prove it.
 */
public final class AccessRules {

    /** A route that authenticates by other means, or must be reachable before signing in; and why. */
    public record Exempt(String method, String path, boolean prefix, String why) {
        boolean covers(String m, String p) {
            return (method == null || method.equals(m)) && (prefix ? p.startsWith(path) : p.equals(path));
        }
    }

    /** A route needing a role other than the default for its method. */
    record Rule(String method, String path, boolean prefix, Role role) {
        boolean covers(String m, String p) {
            return method.equals(m) && (prefix ? p.startsWith(path) : p.equals(path));
        }
    }

    public static final List<Exempt> EXEMPT = List.of(
            new Exempt("POST", "/api/v1/alerts", false, "Alertmanager's webhook: its own bearer token, ACCELTRIAGE_ALERTMANAGER_TOKEN"),
            new Exempt(null, "/api/v1/slack/", true, "Slack: every request is signed with the app's signing secret"),
            new Exempt(null, "/api/v1/teams/", true, "Teams: every request carries an HMAC of the outgoing webhook's token"),
            new Exempt(null, "/api/v1/approvals/", true, "approval links: signed and expiring, sent to approvers in chat"),
            new Exempt("GET", "/sandbox/exporter/", true,
                    "the sandbox's simulated dcgm-exporter, which the service scrapes as it would a real one (no credentials)"),
            new Exempt("GET", "/login", false, "the login form"),
            new Exempt("POST", "/login", false, "the login form posts the token here"),
            new Exempt(null, "/q/", true, "health checks (served outside JAX-RS; listed for completeness)"),
            new Exempt("GET", "/metrics", false, "Prometheus scrapes the service's own metrics"));

    private static final List<Rule> RULES = List.of(
            // Signing out must never need more than signing in did.
            new Rule("POST", "/logout", false, Role.VIEWER));

    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    private AccessRules() {}

    public static Optional<Exempt> exempt(String method, String path) {
        return EXEMPT.stream().filter(e -> e.covers(method, path)).findFirst();
    }

    /** The least role that may make this request. */
    public static Role required(String method, String path) {
        return RULES.stream().filter(r -> r.covers(method, path)).map(Rule::role).findFirst()
                .orElse(READS.contains(method) ? Role.VIEWER : Role.APPROVER);
    }
}
