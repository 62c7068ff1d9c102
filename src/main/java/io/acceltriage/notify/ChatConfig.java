package io.acceltriage.notify;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/** What chat messages link to: this service's address as people reach it. */
@ConfigMapping(prefix = "acceltriage")
public interface ChatConfig {

    /** Base URL of this service for links in chat (ACCELTRIAGE_PUBLIC_URL), without a trailing slash. */
    @WithName("public-url")
    @WithDefault("http://localhost:8080")
    String publicUrl();

    default String link(String path) {
        String base = publicUrl().endsWith("/") ? publicUrl().substring(0, publicUrl().length() - 1) : publicUrl();
        return base + (path.startsWith("/") ? path : "/" + path);
    }
}
