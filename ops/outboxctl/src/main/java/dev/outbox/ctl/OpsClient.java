package dev.outbox.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * The operator API over HTTP/1.1 (the HTTP/2 upgrade misbehaves against Grizzly). Answers are
 * JSON trees; an error answer becomes a {@link ServerError}, no answer at all an
 * {@link Unreachable}. The bearer token goes into the {@code Authorization} header and nowhere
 * else: no message this class builds contains it.
 */
public final class OpsClient {
    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();
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

    public JsonNode get(String path, Map<String, String> query) {
        return send(request(path + queryString(query)).GET());
    }

    public JsonNode get(String path) {
        return get(path, Map.of());
    }

    public JsonNode post(String path, JsonNode body) {
        return send(request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)));
    }

    /** A JSON object with the non-null entries of {@code fields}, in order. */
    public static ObjectNode body(Map<String, ?> fields) {
        ObjectNode o = JSON.createObjectNode();
        fields.forEach((k, v) -> {
            if (v instanceof Boolean b) {
                o.put(k, b);
            } else if (v instanceof Integer i) {
                o.put(k, i);
            } else if (v instanceof Long l) {
                o.put(k, l);
            } else if (v != null) {
                o.put(k, v.toString());
            }
        });
        return o;
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

    private JsonNode send(HttpRequest.Builder builder) {
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
            return json;
        }
        if (json != null && json.isObject() && json.hasNonNull("status")) {
            List<ServerError.FieldError> errors = new ArrayList<>();
            JsonNode e = json.get("errors");
            if (e != null && e.isArray()) {
                for (JsonNode f : e) {
                    errors.add(new ServerError.FieldError(Format.text(f, "field"), Format.text(f, "message")));
                }
            }
            String code = Format.text(json, "code");
            String detail = Format.text(json, "detail");
            return fail(
                    status,
                    code == null ? "error" : code,
                    detail != null
                            ? detail
                            : Format.text(json, "title") != null ? Format.text(json, "title") : "(no detail)",
                    errors);
        }
        // not a problem document: a proxy, a wrong URL, another service on this port
        return fail(
                status,
                "http_" + status,
                "not an outbox problem answer" + (response.body().isBlank() ? "" : ": " + firstLine(response.body())),
                List.of());
    }

    private static JsonNode fail(int status, String code, String detail, List<ServerError.FieldError> errors) {
        throw new ServerError(status, code, detail, errors);
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
