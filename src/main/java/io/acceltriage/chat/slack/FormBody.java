package io.acceltriage.chat.slack;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * application/x-www-form-urlencoded, decoded from the raw bytes the signature was checked over.
 * Strictly: a '%' without two hex digits, or bytes that are not UTF-8, make the whole body
 * {@link Malformed} rather than quietly becoming replacement characters.
 */
final class FormBody {

    /** Why a body is not a form; answered 400. */
    static final class Malformed extends IllegalArgumentException {
        Malformed(String message) {
            super(message);
        }
    }

    private FormBody() {}

    static Map<String, String> parse(byte[] body) {
        Map<String, String> out = new HashMap<>();
        int start = 0;
        for (int i = 0; i <= body.length; i++) {
            if (i == body.length || body[i] == '&') {
                if (i > start) {
                    int eq = start;
                    while (eq < i && body[eq] != '=') eq++;
                    String k = decode(body, start, eq);
                    String v = eq < i ? decode(body, eq + 1, i) : "";
                    out.putIfAbsent(k, v);
                }
                start = i + 1;
            }
        }
        return out;
    }

    private static String decode(byte[] b, int from, int to) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == '+') {
                bytes.write(' ');
            } else if (c == '%') {
                int hi = i + 2 < to ? Character.digit(b[i + 1], 16) : -1;
                int lo = i + 2 < to ? Character.digit(b[i + 2], 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw new Malformed("the form body has a '%' not followed by two hex digits at byte " + i);
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new Malformed("the form body is not UTF-8 text");
        }
    }
}
