package io.acceltriage.evidence;

/** A source that could not be read: missing data is itself evidence, and a reason to be careful. */
public record Gap(Source source, String reason) {}
