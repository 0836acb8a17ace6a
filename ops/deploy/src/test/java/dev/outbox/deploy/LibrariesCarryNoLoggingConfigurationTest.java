package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A library carries no logging configuration (CONVENTIONS 20): a service that adds the outbox
 * keeps its own. A {@code logback.xml} in a library jar silences the service's INFO lines, or
 * takes over entirely when it comes first on the class path. Only {@code outbox-process}
 * holds one, and only the processes (API, relay, consumer runtime, launcher) depend on it.
 *
 * <p>Each artifact is found through a class it holds, so the jar or class folder read is the one
 * this build made (the reactor's {@code target}, or the installed jar), never a guess by name.
 */
class LibrariesCarryNoLoggingConfigurationTest {
    /**
     * What a logging framework reads from the class path's root (Logback, Log4j 1 and 2, SLF4J's
     * simple logger, JUL, commons-logging), and an SLF4J provider, which binds the service's
     * logging as surely as a configuration does.
     */
    private static final Pattern LOGGING_CONFIGURATION = Pattern.compile(
            "logback(-test)?\\.(xml|groovy)"
                    + "|log4j2?(-test)?[^/]*\\.(xml|properties|json|jsn|yaml|yml)"
                    + "|log4j\\.(xml|properties)|simplelogger\\.properties|logging\\.properties"
                    + "|commons-logging\\.properties|META-INF/services/org\\.slf4j\\.spi\\.SLF4JServiceProvider|org/slf4j/impl/StaticLoggerBinder\\.class");

    /** Every artifact of the product's, by a class of its own: the ones a service takes and the processes'. */
    static final Map<String, String> ARTIFACTS = artifacts();

    private static Map<String, String> artifacts() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("outbox-front-door", "dev.outbox.Outbox");
        a.put("outbox-kernel", "dev.outbox.config.Settings");
        a.put("outbox-jdbc", "dev.outbox.jdbc.JdbcOutbox");
        a.put("outbox-spring", "dev.outbox.spring.SpringOutbox");
        a.put("outbox-jooq", "dev.outbox.jooq.JooqOutbox");
        a.put("outbox-migrations", "dev.outbox.migrations.DatabaseMigrations");
        a.put("outbox-persistence", "dev.outbox.persistence.PersistenceModule");
        a.put("outbox-messaging", "dev.outbox.messaging.Topology");
        a.put("outbox-ops-views", "dev.outbox.ops.views.OpsViews");
        a.put("outbox-relay-worker", "dev.outbox.relay.RelayApp");
        a.put("outbox-consumer-runtime", "dev.outbox.consumer.runtime.ConsumerApp");
        a.put("outbox-api", "dev.outbox.api.ApiApp");
        return Collections.unmodifiableMap(a);
    }

    @Test
    void noArtifactOfTheProductButTheProcessesLoggingHoldsALoggingConfiguration() {
        List<String> found = new ArrayList<>();
        ARTIFACTS.forEach((artifact, type) -> {
            Path entry = classPathEntryOf(type.replace('.', '/') + ".class");
            for (String name : loggingConfiguration(entry)) {
                found.add(artifact + " (" + entry + "): " + name);
            }
        });
        assertEquals(List.of(), found, "a library, or a process's own jar, carries logging configuration");
    }

    /** The scan above can see a configuration: it sees the one the processes share. */
    @Test
    void theProcessesLoggingHoldsTheOneConfiguration() {
        Path entry = classPathEntryOf("logback.xml");
        assertEquals(List.of("logback.xml"), loggingConfiguration(entry), entry.toString());
        assertTrue(
                entry.getFileName().toString().startsWith("outbox-process-")
                        || entry.endsWith(Path.of("process/target/classes")),
                "the class path's logback.xml is outbox-process's, not " + entry);
    }

    private static Path classPathEntryOf(String resource) {
        URL url =
                LibrariesCarryNoLoggingConfigurationTest.class.getClassLoader().getResource(resource);
        assertNotNull(url, resource + " is not on the test's class path");
        try {
            if ("jar".equals(url.getProtocol())) {
                JarURLConnection jar = (JarURLConnection) url.openConnection();
                return Path.of(jar.getJarFileURL().toURI());
            }
            Path file = Path.of(url.toURI());
            Path root = file;
            for (int i = resource.split("/").length; i > 0; i--) {
                root = root.getParent();
            }
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url.toString(), e);
        }
    }

    /** The logging configuration a jar or class folder holds, by entry name, sorted. */
    private static List<String> loggingConfiguration(Path entry) {
        try {
            Stream<String> names;
            if (Files.isDirectory(entry)) {
                try (Stream<Path> files = Files.walk(entry)) {
                    names = files
                            .filter(Files::isRegularFile)
                            .map(p -> entry.relativize(p).toString().replace('\\', '/'))
                            .toList()
                            .stream();
                }
            } else {
                try (JarFile jar = new JarFile(entry.toFile())) {
                    names = jar.stream().map(e -> e.getName()).toList().stream();
                }
            }
            return names.filter(n -> LOGGING_CONFIGURATION.matcher(n).matches())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(entry.toString(), e);
        }
    }
}
