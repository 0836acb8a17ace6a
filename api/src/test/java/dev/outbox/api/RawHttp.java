package dev.outbox.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 over a plain socket, byte for byte as the test writes it. {@code java.net.http} refuses
 * or repairs exactly what these tests must send: two {@code Content-Length} headers, a body shorter
 * than its length, NUL and control bytes in headers, a malformed %-escape in the request line,
 * unknown methods. Every request carries {@code Connection: close}, so the answer ends where the
 * stream ends.
 */
final class RawHttp {
    private static final byte[] CRLF = {'\r', '\n'};

    private final int port;

    RawHttp(int port) {
        this.port = port;
    }

    /** What came back: a parsed answer, or nothing at all when the server closed without one. */
    record Answer(int status, List<String[]> headers, byte[] body, boolean closedWithoutAnswer) {
        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        List<String> headerValues(String name) {
            List<String> out = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    out.add(h[1]);
                }
            }
            return out;
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String mediaType() {
            String type = header("Content-Type");
            return type == null ? null : type.split(";")[0].trim().toLowerCase(Locale.ROOT);
        }

        String describe() {
            if (closedWithoutAnswer) {
                return "(closed without an answer)";
            }
            StringBuilder sb = new StringBuilder().append(status);
            for (String[] h : headers) {
                sb.append(" | ").append(h[0]).append(": ").append(h[1]);
            }
            String text = bodyText();
            return sb.append(" | ")
                    .append(text.length() > 400 ? text.substring(0, 400) + "..." : text)
                    .toString();
        }
    }

    /** A request to send: its head (request line and headers, as given) and the body bytes. */
    static final class Request {
        private final String requestLine;
        private final List<byte[]> headers = new ArrayList<>();
        private byte[] body = new byte[0];
        private boolean halfClose = true;
        private boolean contentLengthGiven;
        private boolean addHost = true;

        Request(String method, String target) {
            this.requestLine = method + " " + target + " HTTP/1.1";
        }

        /** A request line exactly as given ({@code "GET / HTTP/2.0"}, one with a raw space, ...). */
        static Request line(String requestLine) {
            return new Request(requestLine);
        }

        private Request(String requestLine) {
            this.requestLine = requestLine;
        }

        Request header(String name, String value) {
            return header(name, value.getBytes(StandardCharsets.UTF_8));
        }

        /** A header whose value is these bytes: NUL, control and non-ASCII bytes included. */
        Request header(String name, byte[] value) {
            if (name.equalsIgnoreCase("Content-Length")) {
                contentLengthGiven = true;
            }
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(": ".getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(value);
            headers.add(b.toByteArray());
            return this;
        }

        /** The body; {@code Content-Length} is its length unless the request names one itself. */
        Request body(byte[] bytes) {
            this.body = bytes;
            return this;
        }

        Request body(String text) {
            return body(text.getBytes(StandardCharsets.UTF_8));
        }

        /** No {@code Host} header at all (HTTP/1.1 requires one). */
        Request withoutHost() {
            this.addHost = false;
            return this;
        }

        /** Keep the write side open after sending (the server must answer without seeing EOF). */
        Request keepWriting() {
            this.halfClose = false;
            return this;
        }

        boolean isHead() {
            return requestLine.startsWith("HEAD ");
        }

        byte[] bytes() {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(requestLine.getBytes(StandardCharsets.ISO_8859_1));
            b.writeBytes(CRLF);
            boolean hasHost = false;
            boolean chunked = false;
            for (byte[] h : headers) {
                String head = new String(h, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
                hasHost |= head.startsWith("host:");
                chunked |= head.startsWith("transfer-encoding:");
            }
            if (!hasHost && addHost) {
                b.writeBytes("Host: 127.0.0.1".getBytes(StandardCharsets.US_ASCII));
                b.writeBytes(CRLF);
            }
            for (byte[] h : headers) {
                b.writeBytes(h);
                b.writeBytes(CRLF);
            }
            if (!contentLengthGiven && !chunked && body.length > 0) {
                b.writeBytes(("Content-Length: " + body.length).getBytes(StandardCharsets.US_ASCII));
                b.writeBytes(CRLF);
            }
            b.writeBytes("Connection: close".getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(CRLF);
            b.writeBytes(CRLF);
            b.writeBytes(body);
            return b.toByteArray();
        }

        @Override
        public String toString() {
            String text = new String(bytes(), StandardCharsets.ISO_8859_1)
                    .replace("\r\n", "\\r\\n")
                    .replace("\0", "\\0");
            return text.length() > 300 ? text.substring(0, 300) + "...(" + text.length() + " chars)" : text;
        }
    }

    /**
     * Sends the request, half-closes (unless told not to) and reads until the server closes. A
     * server that answers nothing within the timeout fails the call: a client would hang too.
     */
    Answer send(Request request) throws IOException {
        byte[] bytes = request.bytes();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            Thread writer = null;
            if (bytes.length > 256 * 1024) {
                // a large body is written beside the read: a server may answer and close before
                // it has read everything, and the answer must still be seen
                writer = new Thread(() -> writeQuietly(s, out, bytes, request.halfClose), "raw-http-writer");
                writer.setDaemon(true);
                writer.start();
            } else {
                out.write(bytes);
                out.flush();
                if (request.halfClose) {
                    s.shutdownOutput();
                }
            }
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            boolean timedOut = readAnswer(s.getInputStream(), received, request.isHead());
            if (writer != null) {
                try {
                    writer.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (timedOut) {
                // a complete answer counts even if the server then keeps the connection open
                try {
                    return parse(received.toByteArray(), request.isHead());
                } catch (IOException | RuntimeException incomplete) {
                    throw new IOException("no complete answer within 5 s (got " + received.size() + " bytes)");
                }
            }
            return parse(received.toByteArray(), request.isHead());
        }
    }

    private static void writeQuietly(Socket s, OutputStream out, byte[] bytes, boolean halfClose) {
        try {
            for (int off = 0; off < bytes.length; off += 16 * 1024) {
                out.write(bytes, off, Math.min(16 * 1024, bytes.length - off));
            }
            out.flush();
            if (halfClose) {
                s.shutdownOutput();
            }
        } catch (IOException serverStoppedReading) {
            // expected when the server answers before it has read the whole body
        }
    }

    /**
     * Reads until the answer is complete (its length, its last chunk) or the server closes; true
     * when it stopped sending before either. A server may keep the connection open after
     * answering, to read the rest of a body it refused (so the client sees the answer before the
     * close): the answer counts when it is complete.
     */
    private static boolean readAnswer(InputStream in, ByteArrayOutputStream b, boolean head) throws IOException {
        byte[] buf = new byte[16 * 1024];
        try {
            int n;
            while ((n = in.read(buf)) != -1) {
                b.write(buf, 0, n);
                if (complete(b.toByteArray(), head)) {
                    return false;
                }
            }
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (IOException reset) {
            if (b.size() == 0) {
                throw reset;
            }
            // the answer arrived before the reset; it is what the client sees
            return false;
        }
    }

    private static boolean complete(byte[] raw, boolean head) {
        int headEnd = indexOf(raw, new byte[] {'\r', '\n', '\r', '\n'});
        if (headEnd < 0) {
            return false;
        }
        if (head) {
            return true;
        }
        String text = new String(raw, 0, headEnd, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        for (String line : text.split("\r\n")) {
            if (line.startsWith("content-length:")) {
                try {
                    return raw.length - headEnd - 4
                            >= Long.parseLong(line.substring(15).trim());
                } catch (NumberFormatException e) {
                    return false;
                }
            }
            if (line.startsWith("transfer-encoding:") && line.contains("chunked")) {
                byte[] end = {'0', '\r', '\n', '\r', '\n'};
                return raw.length >= end.length
                        && java.util.Arrays.equals(
                                java.util.Arrays.copyOfRange(raw, raw.length - end.length, raw.length), end);
            }
        }
        return false;
    }

    /** {@code head}: the answer to a HEAD request, whose Content-Length describes a body never sent. */
    static Answer parse(byte[] raw, boolean head) throws IOException {
        if (raw.length == 0) {
            return new Answer(0, List.of(), new byte[0], true);
        }
        int headEnd = indexOf(raw, new byte[] {'\r', '\n', '\r', '\n'});
        if (headEnd < 0) {
            throw new IOException("no end of head in " + new String(raw, StandardCharsets.ISO_8859_1));
        }
        String[] lines = new String(raw, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP status line: " + lines[0]);
        }
        int status = Integer.parseInt(statusLine[1]);
        List<String[]> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.add(new String[] {
                lines[i].substring(0, colon).trim(),
                lines[i].substring(colon + 1).trim()
            });
        }
        byte[] rest = java.util.Arrays.copyOfRange(raw, headEnd + 4, raw.length);
        boolean chunked = headers.stream()
                .anyMatch(h -> h[0].equalsIgnoreCase("Transfer-Encoding")
                        && h[1].toLowerCase(Locale.ROOT).contains("chunked"));
        if (head) {
            return new Answer(status, headers, new byte[0], false);
        }
        byte[] body = chunked ? dechunk(rest) : rest;
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase("Content-Length") && !chunked) {
                int length = Integer.parseInt(h[1].trim());
                if (body.length < length) {
                    throw new IOException("the answer ended " + (length - body.length) + " bytes short of its length");
                }
                body = java.util.Arrays.copyOf(body, length);
            }
        }
        return new Answer(status, headers, body, false);
    }

    private static byte[] dechunk(byte[] in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pos = 0;
        while (true) {
            int eol = indexOf(in, new byte[] {'\r', '\n'}, pos);
            if (eol < 0) {
                throw new IOException("broken chunked answer");
            }
            String size = new String(in, pos, eol - pos, StandardCharsets.US_ASCII).split(";")[0].trim();
            int n = Integer.parseInt(size, 16);
            if (n == 0) {
                return out.toByteArray();
            }
            out.write(in, eol + 2, n);
            pos = eol + 2 + n + 2;
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        return indexOf(haystack, needle, 0);
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
