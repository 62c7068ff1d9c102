package io.acceltriage.agent;

/** One kind of secret removed from text bound for a model: where it was, what kind, how many. */
public record Redaction(String where, String kind, int count) {}
