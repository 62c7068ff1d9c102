package io.acceltriage.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a script: a final
 * message, tool calls, or an HTTP failure, each optionally late. It records every request so a test
 * can assert on exactly what the model was sent. It speaks the real wire protocol, so the real
 * LangChain4j client is what is tested. Usage reported: a quarter of the request's characters in,
 * a quarter of the reply's out, like a tokenizer would roughly count.
 */
final class ScriptedModelServer implements AutoCloseable {

    static final String MODEL = "scripted-model";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One scripted turn: given the request, the HTTP status, the body and a delay. */
    record Turn(Function<JsonNode, Reply> reply) {}

    record Reply(int status, String body, long delayMs) {}

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final ConcurrentLinkedQueue<Function<JsonNode, Reply>> script = new ConcurrentLinkedQueue<>();
    private volatile Function<JsonNode, Reply> fallback;
    private final List<JsonNode> requests = Collections.synchronizedList(new ArrayList<>());
    private int counter;

    ScriptedModelServer() throws IOException {
        this(0);
    }

    /** On a given port: a model that comes up where the service was told to find it. */
    ScriptedModelServer(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    List<JsonNode> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** Every message the model was sent, across all requests, as one text. */
    String everythingSent() {
        StringBuilder sb = new StringBuilder();
        for (JsonNode r : requests()) r.path("messages").forEach(m -> sb.append(m.path("content").asText()).append('\n'));
        return sb.toString();
    }

    ScriptedModelServer then(Function<JsonNode, Reply> turn) {
        script.add(turn);
        return this;
    }

    /** Answers every request left unscripted (the benchmark's oracle). */
    ScriptedModelServer otherwise(Function<JsonNode, Reply> turn) {
        fallback = turn;
        return this;
    }

    ScriptedModelServer thenAnswer(Object structured) {
        return then(req -> answer(structured));
    }

    ScriptedModelServer thenCall(String tool, String argumentsJson) {
        return then(req -> toolCalls(List.of(Map.entry(tool, argumentsJson))));
    }

    ScriptedModelServer thenFail(int status, String body) {
        return then(req -> new Reply(status, body, 0));
    }

    static Reply answer(Object structured) {
        try {
            String content = structured instanceof String s ? s : JSON.writeValueAsString(structured);
            ObjectNode msg = JSON.createObjectNode().put("role", "assistant").put("content", content);
            return new Reply(200, completion(msg, "stop", content.length()), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Reply toolCalls(List<Map.Entry<String, String>> calls) {
        ObjectNode msg = JSON.createObjectNode().put("role", "assistant");
        msg.putNull("content");
        ArrayNode tc = msg.putArray("tool_calls");
        int i = 0;
        int size = 0;
        for (Map.Entry<String, String> c : calls) {
            ObjectNode call = tc.addObject().put("id", "call_" + (++i) + "_" + System.nanoTime()).put("type", "function");
            call.putObject("function").put("name", c.getKey()).put("arguments", c.getValue());
            size += c.getValue().length() + c.getKey().length();
        }
        return new Reply(200, completion(msg, "tool_calls", size), 0);
    }

    private static String completion(ObjectNode message, String finish, int replyChars) {
        ObjectNode root = JSON.createObjectNode().put("id", "chatcmpl-" + System.nanoTime()).put("object", "chat.completion")
                .put("created", System.currentTimeMillis() / 1000).put("model", MODEL);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        choice.set("message", message);
        choice.put("finish_reason", finish);
        root.putObject("usage").put("prompt_tokens", 0).put("completion_tokens", Math.max(1, replyChars / 4)).put("total_tokens", 0);
        return root.toString();
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            handleOrFail(ex);
        } finally {
            ex.close();
        }
    }

    private void handleOrFail(HttpExchange ex) throws IOException {
        byte[] body = new byte[0];
        try {
            body = ex.getRequestBody().readAllBytes();
            if (!"POST".equals(ex.getRequestMethod()) || !ex.getRequestURI().getPath().endsWith("/chat/completions")) {
                send(ex, 404, "{\"error\":{\"message\":\"no such route\"}}");
                return;
            }
            JsonNode request = JSON.readTree(body);
            requests.add(request);
            Function<JsonNode, Reply> turn = script.poll();
            if (turn == null) turn = fallback;
            Reply reply = turn == null ? new Reply(500, "{\"error\":{\"message\":\"script exhausted\"}}", 0) : turn.apply(request);
            if (reply.delayMs() > 0) {
                try {
                    Thread.sleep(reply.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            String out = reply.body();
            if (reply.status() == 200) {
                // Usage as a server reports it: prompt tokens from what it was sent.
                ObjectNode node = (ObjectNode) JSON.readTree(out);
                int in = body.length / 4;
                int completion = node.path("usage").path("completion_tokens").asInt();
                ((ObjectNode) node.get("usage")).put("prompt_tokens", in).put("total_tokens", in + completion);
                out = node.toString();
            }
            send(ex, reply.status(), out);
        } catch (RuntimeException | Error e) {
            System.err.println("scripted server failed on " + new String(body, StandardCharsets.UTF_8).substring(0, Math.min(body.length, 2000)));
            e.printStackTrace();
            send(ex, 500, "{\"error\":{\"message\":\"" + e.getClass().getSimpleName() + "\"}}");
        }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        // One request per connection: a pooled keep-alive connection the JDK server has dropped would
        // fail the next call with "connection closed", which is not what a test means to script.
        ex.getResponseHeaders().set("Connection", "close");
        try {
            ex.sendResponseHeaders(status, bytes.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(bytes);
            }
        } catch (IOException closedByClient) {
            // The client gave up (a timeout test): nothing to answer.
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
