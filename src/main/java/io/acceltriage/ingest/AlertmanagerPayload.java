package io.acceltriage.ingest;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/** Alertmanager's webhook body, version 4. Newer Alertmanagers add fields: those are ignored. */
@JsonIgnoreProperties(ignoreUnknown = true)
record AlertmanagerPayload(
        String version,
        String groupKey,
        Integer truncatedAlerts,
        String status,
        String receiver,
        Map<String, String> groupLabels,
        Map<String, String> commonLabels,
        Map<String, String> commonAnnotations,
        String externalURL,
        List<AlertmanagerAlert> alerts) {

    @JsonIgnoreProperties(ignoreUnknown = true)
    record AlertmanagerAlert(
            String status,
            Map<String, String> labels,
            Map<String, String> annotations,
            String startsAt,
            String endsAt,
            String generatorURL,
            String fingerprint) {}
}
