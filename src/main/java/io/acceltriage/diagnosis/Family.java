package io.acceltriage.diagnosis;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** The failure families of the design: what broke, which decides what may help. */
public enum Family {
    INFRASTRUCTURE, DEVICE, APPLICATION, NONE;

    @JsonValue
    public String wireName() {
        return name().toLowerCase();
    }

    @JsonCreator
    public static Family parse(String s) {
        for (Family f : values()) {
            if (f.wireName().equals(s)) return f;
        }
        throw new IllegalArgumentException("unknown family '" + s + "': expected infrastructure, device, application or none");
    }
}
