package io.acceltriage.evidence;

import java.util.List;

/** A node's device samples now and, when the source keeps history, ten minutes ago (may be empty). */
public record NodeSamples(List<Sample> now, List<Sample> tenMinutesAgo) {}
