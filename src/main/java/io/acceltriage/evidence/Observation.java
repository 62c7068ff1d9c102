package io.acceltriage.evidence;

/** A fact before it gets its evidence id (ids are given once every source has answered). */
record Observation(Source source, String summary, Fact fact) {}
