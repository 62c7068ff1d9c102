package io.acceltriage.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 written by hand, for requests no well-behaved client sends: a path with bytes that are not
 * UTF-8 or escapes that are not escapes, any header value, any body. One request per connection.
 */
public final class RawHttp {

    /** What came back: status, headers (names in lower case) and body. */
    public record Answer(int status, Map<String, String> headers, byte[] body) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final int port;

    public RawHttp(int port) {
        this.port = port;
    }

    public Answer get(String target, Map<String, String> headers) {
        return send("GET", target, headers, null);
    }

    public Answer post(String target, Map<String, String> headers, byte[] body) {
        return send("POST", target, headers, body == null ? new byte[0] : body);
    }

    /** {@code target} goes on the request line as it is (printable ASCII expected; anything else is sent as Latin-1 bytes). */
    public Answer send(String method, String target, Map<String, String> headers, byte[] body) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes((method + " " + target + " HTTP/1.1\r\nHost: localhost:" + port + "\r\nConnection: close\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (h.getValue() != null) {
                    head.writeBytes((h.getKey() + ": " + h.getValue() + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                }
            }
            if (body != null) {
                head.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
            head.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            OutputStream out = socket.getOutputStream();
            out.write(head.toByteArray());
            if (body != null) {
                try {
                    out.write(body);
                } catch (IOException e) {
                    // The server may answer (413) and close before reading all of a large body.
                }
            }
            out.flush();
            return read(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("no answer to " + method + " " + abbreviate(target), e);
        }
    }

    private static Answer read(InputStream in) throws IOException {
        byte[] all = in.readAllBytes();
        int end = indexOf(all, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        if (end < 0) {
            throw new IOException("no complete response head in " + all.length + " bytes");
        }
        String[] lines = new String(all, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        byte[] rest = java.util.Arrays.copyOfRange(all, end + 4, all.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            rest = dechunk(rest);
        }
        return new Answer(status, headers, rest);
    }

    private static byte[] dechunk(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < b.length) {
            int nl = indexOf(java.util.Arrays.copyOfRange(b, i, b.length), "\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (nl < 0) break;
            String size = new String(b, i, nl, StandardCharsets.ISO_8859_1).split(";")[0].trim();
            int n = Integer.parseInt(size, 16);
            if (n == 0) break;
            out.write(b, i + nl + 2, n);
            i += nl + 2 + n + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) continue outer;
            }
            return i;
        }
        return -1;
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
