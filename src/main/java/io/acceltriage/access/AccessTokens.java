package io.acceltriage.access;

import io.acceltriage.config.ClusterConfig;
import io.acceltriage.config.Secret;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The tokens the operator issued, each with a name and a role. With none configured (the embedded
 * default) one admin token is generated at start and printed, so the service is never open.
 */
@Singleton
public class AccessTokens {

    private static final Logger LOG = Logger.getLogger(AccessTokens.class);
    static final int MIN_TOKEN_LENGTH = 16;
    static final String GENERATED_NAME = "admin";

    /** One issued token. */
    record Entry(String name, Role role, Secret token) {}

    private final List<Entry> entries;
    private final Secret generated;
    private final boolean sandbox;

    AccessTokens(AccessConfig config, ClusterConfig cluster) {
        List<Entry> all = new ArrayList<>();
        config.tokens().filter(t -> !t.isBlank())
                .ifPresent(t -> all.addAll(parse("acceltriage.access.tokens (ACCELTRIAGE_ACCESS_TOKENS)", List.of(t.split(",")))));
        config.file().filter(f -> !f.isBlank()).ifPresent(f -> all.addAll(parseFile(Path.of(f))));
        checkUnique(all);
        this.sandbox = cluster.mode() == ClusterConfig.Mode.SANDBOX;
        if (all.isEmpty()) {
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            this.generated = Secret.of(HexFormat.of().formatHex(random));
            all.add(new Entry(GENERATED_NAME, Role.ADMIN, generated));
        } else {
            this.generated = null;
        }
        this.entries = List.copyOf(all);
    }

    void announce(@Observes StartupEvent event) {
        // The offline commands (eval, audit, capture) serve nothing: a token for them would only be noise.
        boolean serving = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getOptionalValue("quarkus.http.host-enabled", Boolean.class).orElse(true);
        if (!serving) {
            return;
        }
        if (generated == null) {
            LOG.infof("access: %d tokens configured", entries.size());
            return;
        }
        // Printing a credential is deliberate here: it is the only way into an embedded default.
        LOG.warnf("access: no tokens configured; generated an admin token for this run: %s"
                + " (set ACCELTRIAGE_ACCESS_TOKENS or ACCELTRIAGE_ACCESS_FILE to issue your own)", generated.reveal());
        if (sandbox) {
            LOG.infof("access: %s is an approver of this sandbox run (approve, reject, undo, breaker reset);"
                    + " the policy file is unchanged and a real cluster or issued tokens never get this", GENERATED_NAME);
        }
        if (!sandbox) {
            LOG.warn("access: running against a real cluster with a generated token; issue named tokens so approvals name people");
        }
    }

    /**
     * Who approves in the embedded default: the generated admin, only in sandbox mode with no tokens
     * configured, so a newcomer can give every decision the quick start shows. Production (issued
     * tokens, or a real cluster) keeps exactly the policy's approvers.
     */
    public Optional<String> sandboxApprover() {
        return sandbox && generated != null ? Optional.of(GENERATED_NAME) : Optional.empty();
    }

    /** The token generated for this run when none was configured. */
    public Optional<Secret> generated() {
        return Optional.ofNullable(generated);
    }

    /**
     * The principal holding this token. Every entry is compared, in constant time, so the time taken
     * says nothing about which token or how much of it matched.
     */
    Optional<Principal> authenticate(String token) {
        if (token == null || token.isEmpty()) {
            return Optional.empty();
        }
        Entry found = null;
        for (Entry e : entries) {
            if (e.token().matches(token)) {
                found = e;
            }
        }
        return found == null ? Optional.empty() : Optional.of(new Principal(found.name(), found.role()));
    }

    /**
     * Still issued to this name, with this role, as the token the test recognises: a session outlives neither its
     * token, nor a new token under the same name, nor a change of role.
     */
    boolean stillIssued(Principal p, java.util.function.Predicate<Secret> sameToken) {
        return entries.stream().anyMatch(e -> e.name().equals(p.name()) && e.role() == p.role() && sameToken.test(e.token()));
    }

    static List<Entry> parseFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalStateException("acceltriage.access.file (ACCELTRIAGE_ACCESS_FILE): cannot read '" + file
                    + "': " + e.getMessage() + "; point it at a readable file of name:role:token lines", e);
        }
        List<String> kept = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (!line.isEmpty() && !line.startsWith("#")) {
                kept.add(line);
                numbers.add(i + 1);
            }
        }
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < kept.size(); i++) {
            out.addAll(parse(file + ":" + numbers.get(i), List.of(kept.get(i)), false));
        }
        return out;
    }

    static List<Entry> parse(String where, List<String> items) {
        return parse(where, items, true);
    }

    private static List<Entry> parse(String where, List<String> items, boolean numbered) {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i).strip();
            String at = numbered ? where + " entry " + (i + 1) : where;
            if (item.isEmpty()) {
                continue;
            }
            String[] parts = item.split(":", 3);
            if (parts.length < 3 || parts[0].isBlank() || parts[2].isBlank()) {
                throw new IllegalStateException(at + ": expected name:role:token, e.g. alice:approver:$(openssl rand -hex 24)");
            }
            Role role = Role.parse(parts[1]);
            if (role == null) {
                throw new IllegalStateException(at + ": role '" + parts[1].strip() + "' of '" + parts[0].strip()
                        + "' is not viewer, approver or admin");
            }
            String token = parts[2].strip();
            if (token.length() < MIN_TOKEN_LENGTH) {
                throw new IllegalStateException(at + ": the token of '" + parts[0].strip() + "' has " + token.length()
                        + " characters; use at least " + MIN_TOKEN_LENGTH + " (e.g. openssl rand -hex 24)");
            }
            out.add(new Entry(parts[0].strip(), role, Secret.of(token)));
        }
        return out;
    }

    private static void checkUnique(List<Entry> entries) {
        Set<String> names = new HashSet<>();
        for (Entry e : entries) {
            if (!names.add(e.name())) {
                throw new IllegalStateException("access tokens: the name '" + e.name()
                        + "' is given twice; each token needs its own name, as audit records and approvals show it");
            }
            for (Entry other : entries) {
                if (other != e && other.token().matches(e.token().reveal())) {
                    throw new IllegalStateException("access tokens: '" + e.name() + "' and '" + other.name()
                            + "' share one token; give each its own");
                }
            }
        }
    }
}
