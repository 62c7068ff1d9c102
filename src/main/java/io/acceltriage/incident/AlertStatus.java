package io.acceltriage.incident;

public enum AlertStatus {
    FIRING, RESOLVED;

    public static AlertStatus parse(String s) {
        if ("firing".equals(s)) return FIRING;
        if ("resolved".equals(s)) return RESOLVED;
        throw new IllegalArgumentException("status must be \"firing\" or \"resolved\", got \"" + s + "\"");
    }

    public String wireName() {
        return name().toLowerCase();
    }
}
