package dev.outbox.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A frozen copy of the outbox's scripts as the releases before {@code outbox_schema_history}
 * shipped them ({@code db/migration}, history {@code flyway_schema_history}), V1 to V16: what a
 * database of those releases holds, for tests that upgrade one and for tests that compare a table
 * with the shape those scripts gave it. Never edited: a released script is never changed.
 */
public final class ReleasedScripts {
    /** Where the copy sits on the classpath (this module's jar). */
    public static final String LOCATION = "classpath:released/db/migration";

    private static final String RESOURCE = LOCATION.substring("classpath:".length());

    private ReleasedScripts() {}

    /** The scripts' file names, in version order. */
    public static List<String> names() {
        URL dir = ReleasedScripts.class.getClassLoader().getResource(RESOURCE);
        if (dir == null) {
            throw new IllegalStateException(RESOURCE + " is not on the classpath");
        }
        try {
            URI uri = dir.toURI();
            if (!"jar".equals(uri.getScheme())) {
                return list(Path.of(uri));
            }
            // a module outside the reactor reads this from the testkit jar
            try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
                return list(jar.provider().getPath(uri));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(dir.toString(), e);
        }
    }

    /** One script's bytes, exactly as released. */
    public static byte[] bytes(String name) {
        try (InputStream in = ReleasedScripts.class.getClassLoader().getResourceAsStream(RESOURCE + "/" + name)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + "/" + name + " is not on the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .map(name -> name.endsWith("/") ? name.substring(0, name.length() - 1) : name)
                    .sorted(Comparator.comparingInt(ReleasedScripts::version))
                    .toList();
        }
    }

    private static int version(String script) {
        return Integer.parseInt(script.substring(1, script.indexOf("__")));
    }
}
