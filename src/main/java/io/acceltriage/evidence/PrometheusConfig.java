package io.acceltriage.evidence;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** Where Prometheus is, when ACCELTRIAGE_METRICS_SOURCE=prometheus. */
@ConfigMapping(prefix = "acceltriage.prometheus")
public interface PrometheusConfig {

    /** Base URL of Prometheus' HTTP API (ACCELTRIAGE_PROMETHEUS_URL), e.g. http://prometheus-operated.monitoring.svc:9090. */
    Optional<String> url();

    /** Bound of one query (ACCELTRIAGE_PROMETHEUS_TIMEOUT); passed to Prometheus as its timeout too. */
    @WithDefault("10s")
    Duration timeout();

    /** How far back the earlier reading is taken to see changes and increases (ACCELTRIAGE_PROMETHEUS_HISTORY). */
    @WithDefault("10m")
    Duration history();
}
