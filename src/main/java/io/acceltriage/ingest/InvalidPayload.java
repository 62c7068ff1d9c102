package io.acceltriage.ingest;

/** A client's mistake, answered 400 with this message; nothing is stored. */
public class InvalidPayload extends RuntimeException {
    InvalidPayload(String message) {
        super(message);
    }
}
