package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** The rules behind the sandbox's alerts ({@code sandbox/alert-rules.yaml}), and the alerts they fire. */
final class AlertRules {

    record Rule(String expr, String summary, String description, String runbook_url) {
    }

    private record File(String prometheusURL, Map<String, Rule> rules) {
    }

    private final File file;
    private final Clock clock;

    private AlertRules(File file, Clock clock) {
        this.file = file;
        this.clock = clock;
    }

    static AlertRules load(Clock clock) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
        try (InputStream in = AlertRules.class.getResourceAsStream("/sandbox/alert-rules.yaml")) {
            if (in == null) {
                throw new IllegalStateException("sandbox/alert-rules.yaml is missing from the classpath");
            }
            return new AlertRules(yaml.readValue(in, File.class), clock);
        } catch (IOException e) {
            throw new IllegalStateException("sandbox/alert-rules.yaml is invalid: " + e.getMessage(), e);
        }
    }

    /**
     * The alert Prometheus would send for this rule and these labels. {@code facts} fill the
     * annotation templates beyond the labels.
     */
    FiredAlert fire(Map<String, String> labels, Map<String, String> facts) {
        String name = labels.get("alertname");
        Rule rule = file.rules().get(name);
        if (rule == null) {
            throw new IllegalStateException("sandbox/alert-rules.yaml has no rule " + name);
        }
        Map<String, String> values = new HashMap<>(facts);
        values.putAll(labels);
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put("summary", fill(rule.summary(), values));
        annotations.put("description", fill(rule.description(), values));
        if (rule.runbook_url() != null) {
            annotations.put("runbook_url", rule.runbook_url());
        }
        String generator = file.prometheusURL() + "/graph?g0.expr="
                + URLEncoder.encode(rule.expr(), StandardCharsets.UTF_8) + "&g0.tab=1";
        return FiredAlert.firing(labels, annotations, clock.instant().toString(), generator);
    }

    private static String fill(String template, Map<String, String> values) {
        String out = template;
        for (Map.Entry<String, String> v : values.entrySet()) {
            out = out.replace("{" + v.getKey() + "}", v.getValue());
        }
        return out;
    }
}
