package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** What each XID does to the world, loaded from {@code sandbox/xid-effects.yaml}. */
final class XidEffects {

    record Effect(String meaning, String alert, String severity, Boolean gpuUnhealthy, Boolean telemetryLost,
            Boolean crashesWorkload, Integer exitCode, String log, String recovery) {

        /** This entry with the default's values where it says nothing. */
        Effect over(Effect d) {
            return new Effect(meaning != null ? meaning : d.meaning, alert != null ? alert : d.alert,
                    severity != null ? severity : d.severity,
                    gpuUnhealthy != null ? gpuUnhealthy : d.gpuUnhealthy,
                    telemetryLost != null ? telemetryLost : d.telemetryLost,
                    crashesWorkload != null ? crashesWorkload : d.crashesWorkload,
                    exitCode != null ? exitCode : d.exitCode, log != null ? log : d.log,
                    recovery != null ? recovery : d.recovery);
        }
    }

    private record File(Effect defaults, Map<Integer, Effect> xids) {
    }

    private final Effect defaults;
    private final Map<Integer, Effect> xids;

    private XidEffects(Effect defaults, Map<Integer, Effect> xids) {
        this.defaults = defaults;
        this.xids = xids;
    }

    static XidEffects load() {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
        try (InputStream in = XidEffects.class.getResourceAsStream("/sandbox/xid-effects.yaml")) {
            if (in == null) {
                throw new IllegalStateException("sandbox/xid-effects.yaml is missing from the classpath");
            }
            Map<String, Object> raw = yaml.readValue(in, Map.class);
            Effect defaults = yaml.convertValue(raw.get("default"), Effect.class);
            Map<Integer, Effect> xids = yaml.convertValue(raw.get("xids"),
                    yaml.getTypeFactory().constructMapType(Map.class, Integer.class, Effect.class));
            return new XidEffects(defaults, Map.copyOf(xids));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("sandbox/xid-effects.yaml is invalid: " + e.getMessage(), e);
        }
    }

    Effect of(int xid) {
        Effect e = xids.get(xid);
        return e == null ? defaults : e.over(defaults);
    }
}
