package io.acceltriage.access;

/** Who is asking: the name an operator gave a token (it is what audit records and approvals show) and its role. */
public record Principal(String name, Role role) {}
