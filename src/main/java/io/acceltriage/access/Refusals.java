package io.acceltriage.access;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.logging.Logger;

/** Records every refused request in the audit log: who (as far as known), what they asked, and why not. */
@ApplicationScoped
class Refusals {

    static final String ANONYMOUS = "anonymous";
    private static final Logger LOG = Logger.getLogger(Refusals.class);

    private final AuditLog audit;

    Refusals(AuditLog audit) {
        this.audit = audit;
    }

    void record(String actor, String method, String path, String reason, String remote) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("method", method);
        p.put("path", path);
        p.put("reason", reason);
        p.put("remote", remote);
        try {
            audit.append(null, AuditKind.ACCESS_DENIED, actor, p);
        } catch (StoreException e) {
            // The refusal stands whether or not it could be recorded; the store outage is reported elsewhere.
            LOG.warnf("could not audit a refused %s %s by %s: %s", method, path, actor, e.getMessage());
        }
    }
}
