package dev.outbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP/1.1 client for the API under test (HTTP/2 upgrade misbehaves against Grizzly). */
final class ApiClient {
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String base;

    ApiClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    record Reply(int status, String body, HttpResponse<String> raw) {
        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    Reply get(String path, String... headers) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), headers);
    }

    Reply post(String path, String json, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .POST(HttpRequest.BodyPublishers.ofString(json == null ? "" : json));
        b.header("Content-Type", "application/json");
        return send(b, headers);
    }

    Reply send(HttpRequest.Builder b, String... headers) throws IOException, InterruptedException {
        for (int i = 0; i < headers.length; i += 2) {
            b.setHeader(headers[i], headers[i + 1]);
        }
        b.timeout(Duration.ofSeconds(20));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body(), r);
    }
}
