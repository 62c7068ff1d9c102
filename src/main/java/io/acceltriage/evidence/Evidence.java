package io.acceltriage.evidence;

/** One cited observation. Diagnoses and summaries refer to it by {@code id}. */
public record Evidence(String id, Source source, String summary, Fact fact) {}
