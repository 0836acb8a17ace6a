package dev.outbox.testkit;

import java.net.URI;

/**
 * Chooses the database and broker the integration tests run against, once per JVM, and says
 * which on standard error so a test log always shows what it ran on.
 *
 * <p>Environment variables win: {@code OUTBOX_TEST_DB_URL} (with {@code OUTBOX_TEST_DB_USER},
 * {@code OUTBOX_TEST_DB_PASSWORD}) and {@code OUTBOX_TEST_AMQP_URI}; this is what CI sets.
 */
final class TestInfrastructure {
    static final String DB_URL = "OUTBOX_TEST_DB_URL";
    static final String DB_USER = "OUTBOX_TEST_DB_USER";
    static final String DB_PASSWORD = "OUTBOX_TEST_DB_PASSWORD";
    static final String AMQP_URI = "OUTBOX_TEST_AMQP_URI";

    private TestInfrastructure() {
    }

    static TestDatabase database() {
        String url = System.getenv(DB_URL);
        if (url == null || url.isBlank()) {
            throw new IllegalStateException(DB_URL + " is not set: point it at a PostgreSQL database the tests may"
                    + " empty, e.g. jdbc:postgresql://127.0.0.1:5432/outbox_test (see README, Testing)");
        }
        TestDatabase db = TestDatabase.create(url, System.getenv(DB_USER), System.getenv(DB_PASSWORD),
                "environment " + DB_URL);
        announce("database", db.source() + " -> " + url);
        return db;
    }

    static TestBroker broker() {
        String uri = System.getenv(AMQP_URI);
        if (uri == null || uri.isBlank()) {
            throw new IllegalStateException(AMQP_URI + " is not set: point it at a RabbitMQ virtual host the tests"
                    + " may use, e.g. amqp://guest:guest@127.0.0.1:5672/%2F (see README, Testing)");
        }
        TestBroker broker = TestBroker.create(uri, "environment " + AMQP_URI, true);
        announce("broker", broker.source() + " -> " + mask(uri));
        return broker;
    }

    static void announce(String what, String where) {
        System.err.println("[testkit] " + what + ": " + where);
    }

    /** An AMQP URI with its password replaced, safe to print. */
    static String mask(String uri) {
        try {
            URI u = URI.create(uri);
            String info = u.getRawUserInfo();
            if (info == null || !info.contains(":")) {
                return uri;
            }
            return uri.replace(info, info.substring(0, info.indexOf(':')) + ":***");
        } catch (IllegalArgumentException e) {
            return "<unparseable AMQP URI>";
        }
    }
}
