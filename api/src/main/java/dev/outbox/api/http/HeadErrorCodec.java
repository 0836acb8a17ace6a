package dev.outbox.api.http;

import java.io.IOException;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpPacketParsing;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.HttpServerFilter;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.server.AddOn;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.util.Header;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * Grizzly's HTTP codec with problem answers. Grizzly refuses a request whose head it cannot parse
 * before any application code runs, with an empty 400 whatever the cause; this codec keeps
 * Grizzly's parsing and its decisions, refuses two more kinds of head, and says which status and
 * why:
 *
 * <ul>
 *   <li>a request line longer than the head limit: 414;
 *   <li>headers over the head limit, or more of them than allowed: 431;
 *   <li>an HTTP version other than 1.0 and 1.1: 400 (Grizzly says 505 to some and serves
 *       {@code HTTP/2.0} as if it were 1.1; either way the request is not HTTP/1.x, so the fault
 *       is the client's);
 *   <li>ambiguous framing, refused here before any application code sees the request: two
 *       {@code Content-Length} headers (equal or not), or one beside chunked
 *       {@code Transfer-Encoding} (the two ways a proxy and this server could disagree on where a
 *       body ends), and a {@code Content-Length} that is not a number: 400;
 *   <li>anything else Grizzly refuses (no {@code Host} on HTTP/1.1, broken chunked encoding): 400.
 * </ul>
 *
 * <p>Each answer is {@code application/problem+json} and closes the connection, as Grizzly's did.
 * What the head parser was doing when it failed is read from its parsing state, not from the text
 * of its exception: state 0 is the request line, state 1 the headers.
 *
 * <p>A body whose chunked encoding breaks after the request was answered (a GET that never read
 * its body) ends the connection quietly: Grizzly would hand the broken chunk on as if it began a
 * new request, and log a WARN with a stack trace for a fault that is the client's.
 */
public final class HeadErrorCodec extends HttpServerFilter {
    private static final int PARSING_REQUEST_LINE = 0;
    private static final int PARSING_HEADERS = 1;

    /** The problem being answered, from the error callback to the response it builds (same thread). */
    private static final ThreadLocal<Problem> PENDING = new ThreadLocal<>();

    /** Whether the request whose body broke had been answered already (same thread). */
    private static final ThreadLocal<Boolean> ANSWERED_BEFORE_BREAK = ThreadLocal.withInitial(() -> false);

    private final int maxHeadBytes;

    HeadErrorCodec(NetworkListener listener, int maxHeadBytes) {
        super(
                listener.isChunkingEnabled(),
                maxHeadBytes,
                null,
                listener.getKeepAlive(),
                null,
                listener.getMaxRequestHeaders(),
                listener.getMaxResponseHeaders());
        this.maxHeadBytes = maxHeadBytes;
    }

    /** Installs this codec on a listener in place of Grizzly's. */
    public static AddOn installer(int maxHeadBytes) {
        return new Installer(maxHeadBytes);
    }

    @Override
    protected boolean onHttpHeaderParsed(HttpHeader header, Buffer buffer, FilterChainContext ctx) {
        if (super.onHttpHeaderParsed(header, buffer, ctx)) {
            return true;
        }
        HttpRequestPacket request = (HttpRequestPacket) header;
        if (!isHttp1x(request)) {
            request.getResponse().setStatus(505);
            request.getProcessingState().setError(true);
            return true;
        }
        if (HttpCodecParsing.of(request).ambiguousFraming(request.isChunked())) {
            request.getProcessingState().setError(true);
            return true;
        }
        return false;
    }

    @Override
    protected void onHttpHeaderError(HttpHeader header, FilterChainContext ctx, Throwable t) throws IOException {
        HttpRequestPacket request = (HttpRequestPacket) header;
        HttpResponsePacket response = request.getResponse();
        Problem problem = headProblem(request, response, t);
        if (!isHttp1x(request)) {
            // a request line cut off before its version reads as HTTP/0.9, which Grizzly answers
            // with a bare body; whoever sent it can read an HTTP/1.1 answer
            request.setProtocol(Protocol.HTTP_1_1);
        }
        response.setStatus(problem.status());
        response.setReasonPhrase(problem.title());
        PENDING.set(problem);
        try {
            super.onHttpHeaderError(header, ctx, t);
        } finally {
            PENDING.remove();
        }
    }

    @Override
    protected void onHttpContentError(HttpHeader header, FilterChainContext ctx, Throwable t) throws IOException {
        ANSWERED_BEFORE_BREAK.set(
                header.isRequest() && ((HttpRequestPacket) header).getResponse().isCommitted());
        PENDING.set(Problem.of(
                400,
                "body_unreadable",
                "Request body unreadable",
                "the request body ended before its Content-Length, or its chunked encoding is broken"));
        try {
            super.onHttpContentError(header, ctx, t);
        } finally {
            PENDING.remove();
        }
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        ANSWERED_BEFORE_BREAK.set(false);
        try {
            NextAction next = super.handleRead(ctx);
            if (ANSWERED_BEFORE_BREAK.get()
                    && ctx.getMessage() instanceof HttpContent content
                    && HttpContent.isBroken(content)) {
                // answered before the body broke off: nobody reads that body, nobody is told
                content.getHttpHeader().getProcessingState().getHttpContext().close();
                return ctx.getStopAction();
            }
            return next;
        } finally {
            ANSWERED_BEFORE_BREAK.remove();
        }
    }

    private Problem headProblem(HttpRequestPacket request, HttpResponsePacket response, Throwable t) {
        boolean flagged = request.getProcessingState().isError();
        HttpCodecParsing parsing = HttpCodecParsing.of(request);
        if (!flagged && t instanceof IllegalStateException && parsing.state() == PARSING_REQUEST_LINE) {
            return Problem.of(
                    414, "uri_too_long", "URI Too Long", "the request line is longer than " + maxHeadBytes + " bytes");
        }
        if (!flagged && t instanceof IllegalStateException && parsing.state() == PARSING_HEADERS) {
            return Problem.of(
                    431,
                    "request_header_fields_too_large",
                    "Request Header Fields Too Large",
                    "the request head is larger than " + maxHeadBytes + " bytes or has too many header fields");
        }
        if (response.getStatus() == 505) {
            return Problem.of(
                    400, "unsupported_http_version", "Invalid request", "this server speaks HTTP/1.1 and HTTP/1.0");
        }
        if (parsing.ambiguousFraming(isChunked(request))) {
            return Problem.of(
                    400,
                    "invalid_framing",
                    "Invalid request",
                    "send one Content-Length header or chunked Transfer-Encoding, never several or both");
        }
        if (t instanceof NumberFormatException) {
            return Problem.of(
                    400, "invalid_framing", "Invalid request", "Content-Length is not a non-negative whole number");
        }
        if (isHttp11(request) && request.getHeaders().getValue(Header.Host) == null) {
            return Problem.of(400, "malformed_request", "Invalid request", "an HTTP/1.1 request needs a Host header");
        }
        return Problem.of(400, "malformed_request", "Invalid request", "the request head is not valid HTTP/1.1");
    }

    private static boolean isChunked(HttpRequestPacket request) {
        try {
            return request.isChunked();
        } catch (RuntimeException unparsed) {
            return false;
        }
    }

    private static boolean isHttp1x(HttpRequestPacket request) {
        try {
            Protocol p = request.getProtocol();
            return p == Protocol.HTTP_1_1 || p == Protocol.HTTP_1_0;
        } catch (IllegalStateException unparsed) {
            return false;
        }
    }

    private static boolean isHttp11(HttpRequestPacket request) {
        try {
            return request.getProtocol() == Protocol.HTTP_1_1;
        } catch (IllegalStateException unparsed) {
            return false;
        }
    }

    @Override
    protected HttpContent customizeErrorResponse(HttpResponsePacket response) {
        Problem problem = PENDING.get();
        if (problem == null) {
            problem = Problem.of(
                    response.getStatus(), "malformed_request", "Invalid request", "the request is not valid HTTP/1.1");
        }
        byte[] body = problem.toJson();
        response.setContentType(Problem.MEDIA_TYPE);
        response.setContentLength(body.length);
        return HttpContent.builder(response)
                .content(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, body))
                .last(true)
                .build();
    }

    /** What the head parser was doing when it failed, from Grizzly's public parsing state. */
    private record HttpCodecParsing(int state, int contentLengths, boolean contentLengthsDiffer) {
        static HttpCodecParsing of(HttpRequestPacket request) {
            if (request instanceof HttpPacketParsing parsing) {
                var s = parsing.getHeaderParsingState();
                return new HttpCodecParsing(s.state, s.contentLengthHeadersCount, s.contentLengthsDiffer);
            }
            return new HttpCodecParsing(-1, 0, false);
        }

        boolean ambiguousFraming(boolean chunked) {
            return contentLengthsDiffer || contentLengths > 1 || (contentLengths > 0 && chunked);
        }
    }

    /**
     * Puts this codec where Grizzly put its own, with the settings Grizzly gave its own; a listener
     * without Grizzly's codec is a broken build, refused at start.
     */
    private static final class Installer implements AddOn {
        private final int maxHeadBytes;

        Installer(int maxHeadBytes) {
            this.maxHeadBytes = maxHeadBytes;
        }

        @Override
        public void setup(NetworkListener listener, FilterChainBuilder builder) {
            int index = builder.indexOfType(HttpServerFilter.class);
            if (index < 0) {
                throw new IllegalStateException("Grizzly's HTTP codec is not in the listener's filter chain");
            }
            HttpServerFilter grizzly = (HttpServerFilter) builder.get(index);
            HeadErrorCodec codec = new HeadErrorCodec(listener, maxHeadBytes);
            codec.setAllowPayloadForUndefinedHttpMethods(grizzly.isAllowPayloadForUndefinedHttpMethods());
            codec.setMaxPayloadRemainderToSkip(grizzly.getMaxPayloadRemainderToSkip());
            for (var encoding : grizzly.getContentEncodings()) {
                codec.addContentEncoding(encoding);
            }
            builder.set(index, codec);
        }
    }
}
