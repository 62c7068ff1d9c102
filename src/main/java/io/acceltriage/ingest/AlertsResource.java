package io.acceltriage.ingest;

import io.acceltriage.http.ErrorBody;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.metrics.ServiceMetrics;
import io.acceltriage.store.StoreException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Alertmanager's webhook receiver. An alert is stored durably before the 2xx; Alertmanager retries
 * 5xx and never other 4xx, so a store outage answers 503 and a client mistake 400 with the reason.
 */
@Path("/api/v1/alerts")
class AlertsResource {

    private static final Logger LOG = Logger.getLogger(AlertsResource.class);

    private final WebhookAuth auth;
    private final AlertInbox inbox;
    private final ServiceMetrics metrics;

    AlertsResource(IngestConfig config, AlertInbox inbox, ServiceMetrics metrics) {
        this.auth = new WebhookAuth(config.token());
        this.inbox = inbox;
        this.metrics = metrics;
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response receive(@HeaderParam("Authorization") String authorization, byte[] body) {
        if (!auth.accepts(authorization)) {
            return Response.status(Response.Status.UNAUTHORIZED)
                    .header("WWW-Authenticate", "Bearer realm=\"acceltriage\"")
                    .entity(new ErrorBody(authorization == null
                            ? "missing Authorization header: send the bearer token set in ACCELTRIAGE_ALERTMANAGER_TOKEN"
                            : "invalid credentials: the token does not match ACCELTRIAGE_ALERTMANAGER_TOKEN"))
                    .build();
        }
        List<Alert> alerts;
        try {
            alerts = AlertmanagerPayloads.parse(body);
        } catch (InvalidPayload e) {
            return Response.status(Response.Status.BAD_REQUEST).entity(new ErrorBody(e.getMessage())).build();
        }
        try {
            AlertInbox.Receipt receipt = inbox.accept(alerts);
            alerts.forEach(a -> metrics.alertReceived(a.status()));
            return Response.ok(receipt).build();
        } catch (StoreException e) {
            LOG.warnf("webhook answered 503: %s", e.getMessage());
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).header("Retry-After", "5")
                    .entity(new ErrorBody("the store is unavailable; nothing was stored, retry later")).build();
        }
    }
}
