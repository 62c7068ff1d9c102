package io.acceltriage.evidence;

import io.acceltriage.incident.Alert;
import java.util.List;

/**
 * Evidence laid over what was gathered, decided by the incident's alerts: a shadow drill's synthetic
 * reading of its own fault ({@code drill.ShadowOverlay}), so a drill against a healthy real cluster
 * exercises every stage. An overlay adds items of its own {@link Source} and never removes or changes
 * a gathered one; for any other incident it returns the bundle as it is.
 */
public interface EvidenceOverlay {

    EvidenceBundle apply(EvidenceBundle gathered, List<Alert> alerts);
}
