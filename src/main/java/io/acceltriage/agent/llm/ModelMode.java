package io.acceltriage.agent.llm;

import io.acceltriage.config.Secret;
import io.acceltriage.evidence.Toolsets;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Which mode the service runs in: "rules" (no model configured, the embedded default: nothing is
 * ever sent anywhere) or a model behind an OpenAI-compatible endpoint. Says so at start, on
 * GET /api/v1/mode and in every assessment's {@code mode}.
 */
@ApplicationScoped
public class ModelMode {

    private static final Logger LOG = Logger.getLogger(ModelMode.class);

    private final LlmSettings settings;
    private final String toolsDir;
    private final HistoryTools history;
    private final io.acceltriage.diagnosis.Runbooks runbooks;
    /** Backs the model's Prometheus tools; null when ACCELTRIAGE_PROMETHEUS_URL is unset. */
    private final io.acceltriage.evidence.PrometheusSource prometheus;
    private final Instance<ModelCallListener> listeners;
    private final double investigateBelow;
    private final Duration probeEvery;
    private ModelAgent agent;
    private volatile EndpointProbe probe;

    ModelMode(@ConfigProperty(name = "acceltriage.llm.base-url") Optional<String> baseUrl,
            @ConfigProperty(name = "acceltriage.llm.api-key") Optional<String> apiKey,
            @ConfigProperty(name = "acceltriage.llm.model", defaultValue = "gpt-4o-mini") String model,
            @ConfigProperty(name = "acceltriage.llm.timeout", defaultValue = "30s") Duration timeout,
            @ConfigProperty(name = "acceltriage.llm.max-retries", defaultValue = "0") int maxRetries,
            @ConfigProperty(name = "acceltriage.llm.json-schema", defaultValue = "true") boolean jsonSchema,
            @ConfigProperty(name = "acceltriage.llm.budget.steps", defaultValue = "8") int maxSteps,
            @ConfigProperty(name = "acceltriage.llm.budget.tokens", defaultValue = "60000") long maxTokens,
            @ConfigProperty(name = "acceltriage.llm.budget.seconds", defaultValue = "120") int maxSeconds,
            @ConfigProperty(name = "acceltriage.llm.investigate-below", defaultValue = "0.7") double investigateBelow,
            @ConfigProperty(name = "acceltriage.llm.probe-every", defaultValue = "60s") Duration probeEvery,
            @ConfigProperty(name = "acceltriage.tools.dir", defaultValue = "tools") String toolsDir,
            HistoryTools history, Instance<ModelCallListener> listeners, io.acceltriage.evidence.PrometheusConfig prometheus,
            io.acceltriage.diagnosis.Runbooks runbooks) {
        if (maxSteps < 1 || maxTokens < 1 || maxSeconds < 1) {
            throw new IllegalArgumentException("acceltriage.llm.budget.steps, .tokens and .seconds must be at least 1, got "
                    + maxSteps + ", " + maxTokens + ", " + maxSeconds);
        }
        if (!(investigateBelow >= 0 && investigateBelow <= 1)) {
            throw new IllegalArgumentException("acceltriage.llm.investigate-below must be a confidence between 0 (the model only"
                    + " summarises) and 1 (it investigates every incident), got " + investigateBelow);
        }
        if (probeEvery.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("acceltriage.llm.probe-every must be at least 1s, got " + probeEvery);
        }
        this.investigateBelow = investigateBelow;
        this.probeEvery = probeEvery;
        String url = baseUrl.map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        if (url != null) {
            URI u = URI.create(url);
            if (u.getScheme() == null || !u.getScheme().startsWith("http") || u.getHost() == null) {
                throw new IllegalArgumentException("acceltriage.llm.base-url (ACCELTRIAGE_LLM_BASE_URL) must be an http(s) URL such as"
                        + " https://api.openai.com/v1 or http://localhost:11434/v1, got '" + url + "'");
            }
        }
        this.settings = new LlmSettings(url, apiKey.filter(s -> !s.isBlank()).map(Secret::of).orElse(null), model, timeout,
                maxRetries, jsonSchema, maxSteps, maxTokens, Duration.ofSeconds(maxSeconds));
        this.toolsDir = toolsDir;
        this.history = history;
        this.runbooks = runbooks;
        // The declarative tools of tools/ query Prometheus wherever it is configured, whichever source triage reads metrics from.
        this.prometheus = prometheus.url().filter(u -> !u.isBlank()).map(u -> io.acceltriage.evidence.PrometheusSource.from(prometheus))
                .orElse(null);
        this.listeners = listeners;
    }

    void onStart(@Observes StartupEvent event) {
        if (configured()) {
            LOG.infof("mode: model %s at %s (budget per incident: %d steps, %d tokens, %ds); the rules cross-check it and take over when it fails",
                    settings.model(), settings.baseUrl(), settings.maxSteps(), settings.maxTokens(), settings.maxTime().toSeconds());
            // Off the start-up path: a dead endpoint must not delay readiness; the rules work without it.
            // Repeated, so GET /api/v1/mode tells the truth after the model goes down or comes back;
            // only a change is logged.
            Thread t = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    EndpointProbe before = probe;
                    EndpointProbe p = EndpointProbe.of(settings);
                    probe = p;
                    if (before == null || before.reachable() != p.reachable()) {
                        if (p.reachable()) LOG.infof("model endpoint %s %s", settings.baseUrl(), p.detail());
                        else LOG.warnf("model endpoint %s is unreachable (%s): the rules decide until it answers", settings.baseUrl(), p.detail());
                    }
                    try {
                        Thread.sleep(probeEvery.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "acceltriage-model-probe");
            t.setDaemon(true);
            t.start();
        } else {
            LOG.info("mode: rules (no model configured; set ACCELTRIAGE_LLM_BASE_URL, ACCELTRIAGE_LLM_API_KEY and ACCELTRIAGE_LLM_MODEL to add one)");
        }
    }

    public boolean configured() {
        return settings.configured();
    }

    /** "rules", or the model's name. */
    public String label() {
        return configured() ? settings.model() : "rules";
    }

    /** What the latest probe of the endpoint found (every {@code acceltriage.llm.probe-every}); empty in rules mode or before the first. */
    public Optional<EndpointProbe> probe() {
        return Optional.ofNullable(probe);
    }

    public LlmSettings settings() {
        return settings;
    }

    /** The configured model's agent; empty in rules mode. */
    public synchronized Optional<ModelAgent> agent() {
        if (!configured()) return Optional.empty();
        if (agent == null) agent = agentFor(settings).investigatingBelow(investigateBelow);
        return Optional.of(agent);
    }

    /** An agent for other settings, e.g. a scripted server in a test or the benchmark. */
    public ModelAgent agentFor(LlmSettings s) {
        return agentFor(s, prometheus);
    }

    /** An agent for other settings whose Prometheus tools read {@code metrics} (null: none offered), e.g. the benchmark's. */
    public ModelAgent agentFor(LlmSettings s, io.acceltriage.evidence.PrometheusSource metrics) {
        return ModelAgent.build(s, Toolsets.load(toolsDir), history, call -> {
            for (ModelCallListener l : listeners) l.onModelCall(call);
        }, metrics, runbooks);
    }
}
