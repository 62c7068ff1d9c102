package io.acceltriage.mcp;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.TestAuth;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import io.acceltriage.testing.StoreCounts;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The MCP server as another agent meets it, at the wire level of the Streamable HTTP transport
 * (JSON-RPC over POST /mcp with a session id): behind the API's tokens, its tools listed, a read-only
 * triage that stores and sets off nothing, and bad arguments answered as tool errors with a reason.
 */
@QuarkusTest
class McpServerTest {

    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"scripted-client\",\"version\":\"1\"}}}";

    @Inject
    Database database;

    private static Response post(String token, String session, String body) {
        var r = given().contentType("application/json").accept("application/json, text/event-stream").body(body);
        if (token != null) r = r.header("Authorization", "Bearer " + token);
        if (session != null) r = r.header("Mcp-Session-Id", session);
        return r.when().post("/mcp");
    }

    /** The JSON-RPC answer, whether the server sent it as JSON or as one server-sent event. */
    private static JsonNode answer(Response r) {
        String body = r.asString();
        if (body.startsWith("{")) return Json.read(body, JsonNode.class);
        String data = body.lines().filter(l -> l.startsWith("data:")).map(l -> l.substring(5).trim()).findFirst()
                .orElseThrow(() -> new AssertionError("no JSON-RPC answer in: " + body));
        return Json.read(data, JsonNode.class);
    }

    private static String session() {
        Response init = post(TestAuth.VIEWER, null, INITIALIZE);
        assertEquals(200, init.statusCode(), init.asString());
        String session = init.header("Mcp-Session-Id");
        assertNotNull(session, "a session id to continue with");
        assertEquals("acceltriage", answer(init).path("result").path("serverInfo").path("name").asText());
        assertEquals(202, post(TestAuth.VIEWER, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode());
        return session;
    }

    private static JsonNode call(String session, int id, String tool, String arguments) {
        Response r = post(TestAuth.VIEWER, session, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}}");
        assertEquals(200, r.statusCode(), r.asString());
        return answer(r).path("result");
    }

    @Test
    void withoutAnIssuedTokenNothingIsServed() {
        Response none = post(null, null, INITIALIZE);
        assertEquals(401, none.statusCode());
        assertTrue(none.asString().contains("no credentials"), none.asString());
        Response forged = post("not-a-token-anyone-issued", null, INITIALIZE);
        assertEquals(401, forged.statusCode());
        assertFalse(forged.asString().contains("jsonrpc"), "the MCP server never saw it: " + forged.asString());
    }

    @Test
    void aViewerListsTheToolsAndGetsIncidentsAsJson() {
        String session = session();
        Response list = post(TestAuth.VIEWER, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        List<String> names = new ArrayList<>();
        answer(list).path("result").path("tools").forEach(t -> names.add(t.path("name").asText()));
        assertTrue(names.containsAll(List.of("list_incidents", "get_incident", "search_audit", "investigate")), names.toString());

        JsonNode incidents = call(session, 3, "list_incidents", "{\"limit\":5}");
        assertFalse(incidents.path("isError").asBoolean(), incidents.toString());
        JsonNode rows = Json.read(incidents.path("content").get(0).path("text").asText(), JsonNode.class);
        assertTrue(rows.isArray() && rows.size() <= 5, rows.toString());
    }

    @Test
    void anInvestigationSaysWhatPolicyWouldDoAndCarriesOutNothing() {
        String session = session();
        StoreCounts before = StoreCounts.settled(database);
        JsonNode result = call(session, 4, "investigate", "{\"kind\":\"node\",\"name\":\"gpu-h100-06\"}");
        assertFalse(result.path("isError").asBoolean(), result.toString());
        JsonNode triage = Json.read(result.path("content").get(0).path("text").asText(), JsonNode.class);
        assertEquals("node:gpu-h100-06", triage.path("subject").asText());
        assertTrue(List.of("infrastructure", "device", "application", "none").contains(triage.path("family").asText()), triage.toString());
        assertTrue(triage.path("policyWouldDo").isArray() && triage.path("summary").asText().contains("gpu-h100-06"), triage.toString());
        assertEquals(before, StoreCounts.of(database), "a read-only triage stored or set off something");
    }

    @Test
    void badArgumentsAreToolErrorsThatSayWhy() {
        String session = session();
        JsonNode escape = call(session, 5, "investigate", "{\"kind\":\"node\",\"name\":\"../../api/v1/sandbox/nodes?\"}");
        assertTrue(escape.path("isError").asBoolean(), escape.toString());
        assertTrue(escape.toString().contains("must be a Kubernetes name"), escape.toString());
        JsonNode limit = call(session, 6, "list_incidents", "{\"limit\":0}");
        assertTrue(limit.path("isError").asBoolean() && limit.toString().contains("between 1 and 100"), limit.toString());
        JsonNode id = call(session, 7, "get_incident", "{\"id\":\"x; drop table incidents\"}");
        assertTrue(id.path("isError").asBoolean() && id.toString().contains("inc-"), id.toString());
    }
}
