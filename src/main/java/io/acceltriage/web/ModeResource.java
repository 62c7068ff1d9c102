package io.acceltriage.web;

import io.acceltriage.agent.llm.ModelMode;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * GET /api/v1/mode: "rules" or "model", the model's name, the endpoint's host (never the key) and
 * whether the endpoint answered the start-up probe: configured is not the same as working.
 */
@Path("/api/v1/mode")
public class ModeResource {

    private final ModelMode mode;

    ModeResource(ModelMode mode) {
        this.mode = mode;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> mode() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", mode.configured() ? "model" : "rules");
        if (mode.configured()) {
            URI u = URI.create(mode.settings().baseUrl());
            out.put("model", mode.settings().model());
            out.put("endpoint", u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : ""));
            out.put("budget", Map.of("steps", mode.settings().maxSteps(), "tokens", mode.settings().maxTokens(),
                    "seconds", mode.settings().maxTime().toSeconds()));
            Map<String, Object> probe = new LinkedHashMap<>();
            mode.probe().ifPresentOrElse(p -> {
                probe.put("reachable", p.reachable());
                if (p.status() != null) probe.put("status", p.status());
                probe.put("detail", p.detail());
                probe.put("at", p.at().toString());
            }, () -> probe.put("detail", "probing"));
            out.put("endpointProbe", probe);
        }
        return out;
    }
}
