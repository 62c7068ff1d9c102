package io.acceltriage.sandbox;

import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A stand-in alert receiver for the resource test, so delivery can be checked without the ingest stage. */
@Path("/sandbox-test/alerts")
public class CapturedAlerts {

    record Delivery(String authorization, String body) {
    }

    static final List<Delivery> RECEIVED = new CopyOnWriteArrayList<>();

    @POST
    public Response receive(@HeaderParam("Authorization") String authorization, String body) {
        RECEIVED.add(new Delivery(authorization, body));
        return Response.ok().build();
    }
}
