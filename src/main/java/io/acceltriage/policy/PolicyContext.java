package io.acceltriage.policy;

import io.acceltriage.diagnosis.Family;

/** What the engine weighs a proposal against: the deterministic diagnosis. */
public record PolicyContext(Family family, double confidence, boolean degradation) {}
