package io.acceltriage.ingest;

import io.acceltriage.config.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/** Alertmanager authenticates with a bearer token or basic auth; there is no body signature. */
final class WebhookAuth {
    private final Optional<Secret> token;

    WebhookAuth(Optional<String> token) {
        this.token = token.filter(t -> !t.isBlank()).map(Secret::of);
    }

    boolean required() {
        return token.isPresent();
    }

    boolean accepts(String authorization) {
        if (token.isEmpty()) {
            return true;
        }
        if (authorization == null) {
            return false;
        }
        if (authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return token.get().matches(authorization.substring(7).trim());
        }
        if (authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            try {
                String decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
                int colon = decoded.indexOf(':');
                return colon >= 0 && token.get().matches(decoded.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        return false;
    }
}
