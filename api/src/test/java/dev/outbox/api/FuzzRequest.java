package dev.outbox.api;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request of {@link HttpFuzzIT}, built from an operation of {@code /openapi.json} and then
 * changed by one mutation. Values are kept exactly as they go on the wire: path and query values
 * already %-encoded (or deliberately not), header values as bytes.
 */
final class FuzzRequest {
    String method;
    final String template;
    final Map<String, String> pathValues = new LinkedHashMap<>();
    final List<String[]> query = new ArrayList<>();
    /** When set, the whole query string as written, replacing {@link #query}. */
    String rawQuery;

    final List<Object[]> headers = new ArrayList<>();
    String contentType;
    byte[] body;
    /** Content-Length values as written, replacing the computed one (none, one or several). */
    List<String> contentLengths;

    boolean chunked;
    boolean halfClose = true;
    /** The whole request line as written (a version or target the other fields cannot express). */
    String requestLine;

    boolean withHost = true;
    String host;

    FuzzRequest(String method, String template) {
        this.method = method;
        this.template = template;
    }

    FuzzRequest header(String name, String value) {
        return header(name, value.getBytes(StandardCharsets.UTF_8));
    }

    FuzzRequest header(String name, byte[] value) {
        headers.add(new Object[] {name, value});
        return this;
    }

    FuzzRequest removeHeader(String name) {
        headers.removeIf(h -> ((String) h[0]).equalsIgnoreCase(name));
        return this;
    }

    FuzzRequest body(String text) {
        this.body = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    String target() {
        String path = template;
        for (Map.Entry<String, String> p : pathValues.entrySet()) {
            path = path.replace("{" + p.getKey() + "}", p.getValue());
        }
        String q = rawQuery;
        if (q == null && !query.isEmpty()) {
            List<String> parts = new ArrayList<>();
            for (String[] p : query) {
                parts.add(p[0] + "=" + p[1]);
            }
            q = String.join("&", parts);
        }
        return q == null ? path : path + "?" + q;
    }

    RawHttp.Request toRaw() {
        RawHttp.Request r =
                requestLine != null ? RawHttp.Request.line(requestLine) : new RawHttp.Request(method, target());
        if (!withHost) {
            r.withoutHost();
        } else if (host != null) {
            r.header("Host", host);
        }
        for (Object[] h : headers) {
            r.header((String) h[0], (byte[]) h[1]);
        }
        if (contentType != null) {
            r.header("Content-Type", contentType);
        }
        if (contentLengths != null) {
            for (String length : contentLengths) {
                r.header("Content-Length", length);
            }
        }
        if (chunked) {
            r.header("Transfer-Encoding", "chunked");
        }
        if (body != null) {
            r.body(chunked ? chunk(body) : body);
        }
        if (!halfClose) {
            r.keepWriting();
        }
        return r;
    }

    private static byte[] chunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int off = 0; off < body.length; off += 8192) {
            int n = Math.min(8192, body.length - off);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, off, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }
}
