package io.acceltriage.ingest;

import io.smallrye.config.ConfigMapping;
import java.util.Optional;

@ConfigMapping(prefix = "acceltriage.alertmanager")
public interface IngestConfig {
    /**
     * Bearer token Alertmanager must send (ACCELTRIAGE_ALERTMANAGER_TOKEN). Unset: the webhook is
     * open, which only the embedded default should run with.
     */
    Optional<String> token();
}
