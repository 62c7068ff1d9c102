package io.acceltriage.audit;

/** Who did something, as audit records name them. People are named by their own id. */
public final class Actors {
    public static final String AGENT = "acceltriage";
    public static final String ALERTMANAGER = "alertmanager";

    private Actors() {}
}
