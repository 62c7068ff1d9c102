package io.acceltriage.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.acceltriage.store.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The third parties that cannot run here, on 127.0.0.1, speaking their wire protocols: Slack's Web API
 * (chat.postMessage, chat.update, and conversations.history and conversations.replies over what it was
 * posted, message metadata included), Slack response_urls, a Teams Workflows webhook and Alertmanager's
 * silences API. It records every request and can be told to answer 429 with Retry-After. Tests read
 * and steer it over HTTP ({@code /_recorded}, {@code /_fail}), so it does not matter which class
 * loader started it.
 */
public final class FakeChat {

    /** A request as the fake received it; {@code at} in epoch milliseconds. */
    public record Received(String path, String authorization, String body, long at) {
        public JsonNode json() {
            return Json.read(body, JsonNode.class);
        }
    }

    private static FakeChat running;

    private final HttpServer server;
    private final List<Received> received = new ArrayList<>();
    private final Map<String, Deque<int[]>> failures = new HashMap<>();
    /** Slack's ts: epoch seconds and a unique six-digit fraction, so {@code oldest} bounds work as in Slack. */
    private final AtomicLong micros = new AtomicLong();
    /** What chat.postMessage posted, per channel in order: the history the conversations.* methods read. */
    private final Map<String, List<ObjectNode>> posted = new HashMap<>();

    private FakeChat() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The one fake of this class loader, started on first use. */
    public static synchronized FakeChat start() {
        if (running == null) {
            try {
                running = new FakeChat();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return running;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        byte[] in = ex.getRequestBody().readAllBytes();
        if (path.equals("/_recorded")) {
            String prefix = query(ex).getOrDefault("prefix", "/");
            ArrayNode out = Json.MAPPER.createArrayNode();
            synchronized (this) {
                for (Received r : received) {
                    if (r.path().startsWith(prefix)) {
                        out.add(Json.MAPPER.valueToTree(r));
                    }
                }
            }
            answer(ex, 200, "application/json", Json.write(out), null);
            return;
        }
        if (path.equals("/_fail")) {
            Map<String, String> q = query(ex);
            synchronized (this) {
                Deque<int[]> d = failures.computeIfAbsent(q.get("path"), k -> new ArrayDeque<>());
                for (int i = 0; i < Integer.parseInt(q.getOrDefault("times", "1")); i++) {
                    d.add(new int[] {Integer.parseInt(q.get("status")), Integer.parseInt(q.getOrDefault("retryAfter", "-1"))});
                }
            }
            answer(ex, 204, null, "", null);
            return;
        }
        String body = new String(in, StandardCharsets.UTF_8);
        int[] fail;
        synchronized (this) {
            received.add(new Received(path, ex.getRequestHeaders().getFirst("Authorization"), body, System.currentTimeMillis()));
            Deque<int[]> d = failures.get(path);
            fail = d == null ? null : d.poll();
        }
        if (fail != null) {
            answer(ex, fail[0], "application/json", "{\"ok\":false,\"error\":\"ratelimited\"}",
                    fail[1] < 0 ? null : Integer.toString(fail[1]));
            return;
        }
        if (path.startsWith("/slack/api/")) {
            ObjectNode reply = Json.MAPPER.createObjectNode();
            if (!"Bearer xoxb-test-token".equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                reply.put("ok", false).put("error", "invalid_auth");
            } else if (path.endsWith("/conversations.history") || path.endsWith("/conversations.replies")) {
                reply = conversation(path.endsWith("/conversations.replies"), arguments(ex, body));
            } else {
                JsonNode req = Json.read(body, JsonNode.class);
                String ts = path.endsWith("chat.update") ? req.path("ts").asText() : nextTs();
                reply.put("ok", true).put("channel", req.path("channel").asText()).put("ts", ts);
                if (path.endsWith("/chat.postMessage")) {
                    ObjectNode m = Json.MAPPER.createObjectNode().put("type", "message").put("user", "U0ACCELBOT")
                            .put("bot_id", "B0ACCELBOT").put("text", req.path("text").asText()).put("ts", ts);
                    if (req.hasNonNull("thread_ts")) m.put("thread_ts", req.path("thread_ts").asText());
                    if (req.has("metadata")) m.set("metadata", req.path("metadata"));
                    synchronized (this) {
                        posted.computeIfAbsent(req.path("channel").asText(), k -> new ArrayList<>()).add(m);
                    }
                }
            }
            answer(ex, 200, "application/json; charset=utf-8", Json.write(reply), null);
        } else if (path.startsWith("/slack/response/")) {
            answer(ex, 200, "text/html", "ok", null);
        } else if (path.startsWith("/teams/")) {
            answer(ex, 202, "text/plain", "", null);
        } else if (path.equals("/am/api/v2/silences")) {
            answer(ex, 200, "application/json", "{\"silenceID\":\"5f3c0d1e-silence\"}", null);
        } else {
            answer(ex, 404, "text/plain", "no such path in the fake", null);
        }
    }

    private String nextTs() {
        long n = micros.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis() * 1000));
        return (n / 1_000_000) + "." + String.format("%06d", n % 1_000_000);
    }

    /**
     * conversations.history (the channel's messages, not the replies in threads, newest first) or
     * conversations.replies (the thread's parent and its replies, oldest first), as Slack's Web API
     * documents them: {@code oldest} and {@code latest} exclusive unless {@code inclusive}, {@code limit}
     * with a {@code cursor} in {@code response_metadata.next_cursor}, a message's {@code metadata} only
     * with {@code include_all_metadata}, and {@code thread_not_found} for a reply ts without its thread.
     */
    private synchronized ObjectNode conversation(boolean replies, Map<String, String> a) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        String channel = a.get("channel");
        // Slack's read methods take a conversation's id only, never its #name.
        if (channel == null || !channel.matches("[CGD][A-Z0-9]{2,}")) return out.put("ok", false).put("error", "channel_not_found");
        List<ObjectNode> all = posted.getOrDefault(channel, List.of());
        String parent = a.get("ts");
        if (replies && (parent == null || all.stream().noneMatch(m -> m.path("ts").asText().equals(parent)))) {
            return out.put("ok", false).put("error", "thread_not_found");
        }
        boolean inclusive = "true".equals(a.get("inclusive")) || "1".equals(a.get("inclusive"));
        double oldest = Double.parseDouble(a.getOrDefault("oldest", "0"));
        double latest = a.containsKey("latest") ? Double.parseDouble(a.get("latest")) : Double.MAX_VALUE;
        List<ObjectNode> picked = new ArrayList<>();
        for (ObjectNode m : all) {
            String ts = m.path("ts").asText();
            boolean inThread = m.hasNonNull("thread_ts") && !m.path("thread_ts").asText().equals(ts);
            if (replies ? !(ts.equals(parent) || parent.equals(m.path("thread_ts").asText())) : inThread) continue;
            double t = Double.parseDouble(ts);
            boolean inRange = inclusive ? t >= oldest && t <= latest : t > oldest && t < latest;
            if (inRange || (replies && ts.equals(parent))) picked.add(m);
        }
        if (!replies) java.util.Collections.reverse(picked);
        int limit = Math.max(1, Math.min(Integer.parseInt(a.getOrDefault("limit", replies ? "1000" : "100")), 999));
        int from = a.containsKey("cursor") && !a.get("cursor").isBlank() ? Integer.parseInt(a.get("cursor")) : 0;
        ArrayNode messages = out.put("ok", true).putArray("messages");
        boolean withMetadata = "true".equals(a.get("include_all_metadata")) || "1".equals(a.get("include_all_metadata"));
        for (ObjectNode m : picked.subList(Math.min(from, picked.size()), Math.min(from + limit, picked.size()))) {
            ObjectNode copy = m.deepCopy();
            if (!withMetadata) copy.remove("metadata");
            messages.add(copy);
        }
        boolean more = from + limit < picked.size();
        out.put("has_more", more);
        out.putObject("response_metadata").put("next_cursor", more ? Integer.toString(from + limit) : "");
        return out;
    }

    /** A Web API method's arguments: form-encoded, JSON or in the query string, as Slack takes them. */
    private static Map<String, String> arguments(HttpExchange ex, String body) {
        Map<String, String> a = query(ex);
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        if (type != null && type.startsWith("application/json")) {
            Json.read(body, JsonNode.class).fields().forEachRemaining(e -> a.put(e.getKey(), e.getValue().asText()));
        } else if (!body.isBlank()) {
            for (String p : body.split("&")) {
                int eq = p.indexOf('=');
                if (eq > 0) a.put(URLDecoder.decode(p.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return a;
    }

    private static void answer(HttpExchange ex, int status, String type, String body, String retryAfter) throws IOException {
        if (type != null) ex.getResponseHeaders().set("Content-Type", type);
        if (retryAfter != null) ex.getResponseHeaders().set("Retry-After", retryAfter);
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) ex.getResponseBody().write(b);
        ex.close();
    }

    private static Map<String, String> query(HttpExchange ex) {
        Map<String, String> out = new HashMap<>();
        String q = ex.getRequestURI().getRawQuery();
        if (q != null) {
            for (String p : q.split("&")) {
                int eq = p.indexOf('=');
                out.put(URLDecoder.decode(p.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    // ---- the test side, over HTTP ----

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** What the fake at {@code base} received on paths starting with {@code prefix}, in order. */
    public static List<Received> recorded(String base, String prefix) {
        String body = get(base + "/_recorded?prefix=" + java.net.URLEncoder.encode(prefix, StandardCharsets.UTF_8));
        List<Received> out = new ArrayList<>();
        for (JsonNode n : Json.read(body, JsonNode.class)) {
            out.add(new Received(n.path("path").asText(), n.path("authorization").asText(null), n.path("body").asText(),
                    n.path("at").asLong()));
        }
        return out;
    }

    /** The next {@code times} requests to {@code path} get {@code status} (with Retry-After when ≥ 0). */
    public static void fail(String base, String path, int status, int retryAfter, int times) {
        try {
            HTTP.send(HttpRequest.newBuilder(URI.create(base + "/_fail?path=" + path + "&status=" + status + "&retryAfter="
                    + retryAfter + "&times=" + times)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Calls the fake Slack's {@code method} with a JSON body as the bot would (a sender that then died, say). */
    public static JsonNode slack(String base, String method, String json) {
        try {
            return Json.read(HTTP.send(HttpRequest.newBuilder(URI.create(base + "/slack/api/" + method))
                    .header("Authorization", "Bearer xoxb-test-token").header("Content-Type", "application/json; charset=utf-8")
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString()).body(), JsonNode.class);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String get(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
