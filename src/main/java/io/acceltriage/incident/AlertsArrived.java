package io.acceltriage.incident;

/** CDI event fired after new alerts were committed to the inbox, so the responder wakes at once. */
public record AlertsArrived(int count) {}
