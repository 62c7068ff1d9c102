package io.acceltriage.evidence;

/** A container log worth reading: its current or its previous (last terminated) instance. */
record LogTarget(String namespace, String pod, String container, PodRole role, boolean previous) {}
