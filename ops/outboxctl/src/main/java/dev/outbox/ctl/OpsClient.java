package dev.outbox.ctl;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator API over HTTP/1.1 (the HTTP/2 upgrade misbehaves against Grizzly). An answer is
 * the server's JSON as sent, read on demand into the API's own view record
 * ({@code dev.outbox.ops.views}); an error answer becomes a {@link ServerError}, no answer at all
 * an {@link Unreachable}. The bearer token goes into the {@code Authorization} header and nowhere
 * else: no message this class builds contains it.
 */
public final class OpsClient {
    /** Prints answers (indented) and reads them into views. */
    static final ObjectMapper JSON =
            mapper().enable(SerializationFeature.INDENT_OUTPUT).build();
    /** Writes request bodies: compact, a field left null left out (the API reads both as absent). */
    private static final ObjectMapper BODIES = mapper().defaultPropertyInclusion(
                    JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS))
            .build();

    /**
     * The same configuration for what the CLI reads and writes: instants as the API writes them
     * (ISO-8601), decimals in a payload kept exact, and fields the CLI does not know ignored, so an
     * older CLI still reads a newer server's answers.
     */
    private static JsonMapper.Builder mapper() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private static final class Shared {
        static final HttpClient HTTP = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    private final String baseUrl;
    private final String token;
    private final String operator;

    /**
     * @param baseUrl  {@code http(s)://host:port}, optionally with a path prefix; no trailing slash needed
     * @param token    bearer token, or {@code null} to send none
     * @param operator the {@code X-Operator} name, or {@code null}
     */
    public OpsClient(String baseUrl, String token, String operator) {
        this.baseUrl = stripSlash(baseUrl);
        this.token = token == null || token.isBlank() ? null : token.trim();
        this.operator = operator == null || operator.isBlank() ? null : operator.trim();
    }

    public String baseUrl() {
        return baseUrl;
    }

    public <T> Answer<T> get(String path, Map<String, String> query, Class<T> view) {
        return send(request(path + queryString(query)).GET(), view);
    }

    public <T> Answer<T> get(String path, Class<T> view) {
        return get(path, Map.of(), view);
    }

    /** POSTs {@code body} (a request record of the views) as JSON. */
    public <T> Answer<T> post(String path, Object body, Class<T> view) {
        return send(
                request(path)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body(body), StandardCharsets.UTF_8)),
                view);
    }

    /** {@code body} as the CLI sends it. */
    static String body(Object body) {
        try {
            return BODIES.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + body.getClass().getSimpleName(), e);
        }
    }

    /**
     * A successful answer: {@code json} as the server sent it (what {@code --json} prints, fields
     * this CLI does not know included) and {@link #view()}, the same read into its record.
     */
    public record Answer<T>(int status, JsonNode json, Class<T> type) {
        /** The answer as its view; one that is not is the server's error, not this CLI's. */
        public T view() {
            return read(status, json, type);
        }
    }

    /** {@code json} read into {@code type} as the CLI reads every answer. */
    static <T> T read(int status, JsonNode json, Class<T> type) {
        try {
            return JSON.treeToValue(json, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new ServerError(
                    status,
                    "unexpected_response",
                    "the answer is not a " + type.getSimpleName() + ": " + firstLine(String.valueOf(e.getMessage())),
                    List.of());
        }
    }

    /** {@code ?a=1&b=2} of the non-blank values, URL-encoded; empty when there are none. */
    static String queryString(Map<String, String> query) {
        StringBuilder q = new StringBuilder();
        for (Map.Entry<String, String> e : query.entrySet()) {
            if (e.getValue() == null || e.getValue().isBlank()) {
                continue;
            }
            q.append(q.length() == 0 ? '?' : '&')
                    .append(encode(e.getKey()))
                    .append('=')
                    .append(encode(e.getValue()));
        }
        return q.toString();
    }

    /** A path segment (an id typed by a person) encoded so it cannot leave its segment. */
    static String segment(String value) {
        return encode(value).replace("+", "%20");
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (operator != null) {
            b.header("X-Operator", operator);
        }
        return b;
    }

    private <T> Answer<T> send(HttpRequest.Builder builder, Class<T> view) {
        HttpResponse<String> response;
        try {
            response = Shared.HTTP.send(builder.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new Unreachable(baseUrl, describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable(baseUrl, "interrupted while waiting for the answer", e);
        }
        JsonNode json = parse(response.body());
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            if (json == null) {
                throw new ServerError(
                        status,
                        "unexpected_response",
                        "the answer is not JSON: " + firstLine(response.body()),
                        List.of());
            }
            return new Answer<>(status, json, view);
        }
        if (json != null && json.isObject() && json.hasNonNull("status")) {
            List<ServerError.FieldError> errors = new ArrayList<>();
            JsonNode e = json.get("errors");
            if (e != null && e.isArray()) {
                for (JsonNode f : e) {
                    errors.add(new ServerError.FieldError(text(f, "field"), text(f, "message")));
                }
            }
            String code = text(json, "code");
            String detail = text(json, "detail");
            throw new ServerError(
                    status,
                    code == null ? "error" : code,
                    detail != null ? detail : text(json, "title") != null ? text(json, "title") : "(no detail)",
                    errors);
        }
        // not a problem document: a proxy, a wrong URL, another service on this port
        throw new ServerError(
                status,
                "http_" + status,
                "not an outbox problem answer" + (response.body().isBlank() ? "" : ": " + firstLine(response.body())),
                List.of());
    }

    /**
     * A field of an error answer as text, or {@code null} when it is missing or JSON null. Error
     * answers are read as trees, not as a record: whatever answered (the API, a proxy, another
     * service on the port) is described as far as it can be.
     */
    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.isValueNode() ? v.asText() : v.toString();
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static String firstLine(String body) {
        String s = body.strip();
        int nl = s.indexOf('\n');
        s = nl < 0 ? s : s.substring(0, nl);
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    /** What went wrong, in words; the JDK often leaves the message of a refused connection empty. */
    static String describe(IOException e) {
        if (e instanceof HttpConnectTimeoutException) {
            return "connect timed out after " + CONNECT_TIMEOUT.toSeconds() + "s";
        }
        if (e instanceof HttpTimeoutException) {
            return "no answer within " + REQUEST_TIMEOUT.toSeconds() + "s";
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof java.net.UnknownHostException) {
                return "unknown host";
            }
        }
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private static String stripSlash(String url) {
        String u = url.trim();
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        return u;
    }

    /** An ordered map for query strings and bodies; null values are left out later. */
    static Map<String, String> params(String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
