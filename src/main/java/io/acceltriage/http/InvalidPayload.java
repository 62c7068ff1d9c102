package io.acceltriage.http;

/** A client's mistake, answered 400 with this message; nothing is stored. */
public class InvalidPayload extends RuntimeException {
    public InvalidPayload(String message) {
        super(message);
    }
}
