package io.acceltriage.http;

/** Every 4xx/5xx body of the API: one sentence saying what was wrong and what to do. */
public record ErrorBody(String error) {}
