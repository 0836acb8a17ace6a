package dev.outbox.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code rabbitmqctl}, for the few tests that need what only the broker's administrator can do
 * (a user without write permission). Only for a real local RabbitMQ.
 */
public final class RabbitAdmin {
    private RabbitAdmin() {}

    /** The vhost named in an AMQP URI ({@code /%2F} is the default vhost {@code /}). */
    public static String vhostOf(String amqpUri) {
        String path = URI.create(amqpUri).getRawPath();
        if (path == null || path.isEmpty() || path.equals("/")) {
            return "/";
        }
        return URLDecoder.decode(path.substring(1), StandardCharsets.UTF_8);
    }

    public static String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("rabbitmqctl");
        command.add("-q");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("rabbitmqctl " + String.join(" ", args) + " timed out");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("rabbitmqctl " + String.join(" ", args) + " failed (" + p.exitValue() + "): " + out);
        }
        return out;
    }

    /** True when rabbitmqctl can talk to the broker from here. */
    public static boolean available() {
        try {
            run("status");
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
