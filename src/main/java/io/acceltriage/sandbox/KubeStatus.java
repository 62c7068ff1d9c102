package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;

/** A meta/v1 Status body, as the API server answers errors and some successes. */
final class KubeStatus {

    private KubeStatus() {
    }

    static MockResponse failure(int code, String reason, String message, String kind, String name) {
        ObjectNode status = ObjectStore.JSON.createObjectNode();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", message);
        status.put("reason", reason);
        if (kind != null || name != null) {
            ObjectNode details = status.putObject("details");
            if (name != null) {
                details.put("name", name);
            }
            if (kind != null) {
                details.put("kind", kind);
            }
        }
        status.put("code", code);
        return json(code, status.toString());
    }

    static MockResponse success(int code) {
        ObjectNode status = ObjectStore.JSON.createObjectNode();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Success");
        status.put("code", code);
        return json(code, status.toString());
    }

    static MockResponse json(int code, String body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(body);
    }
}
