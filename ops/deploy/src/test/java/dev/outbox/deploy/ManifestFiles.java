package dev.outbox.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/** The manifests under {@code ops/deploy/k8s}, read as YAML documents. The tests run in {@code ops/deploy}. */
final class ManifestFiles {
    static final Path K8S = Path.of("k8s").toAbsolutePath();
    static final Path BASE = K8S.resolve("base");
    static final Path OVERLAYS = K8S.resolve("overlays");
    static final Path SECRET_EXAMPLE = K8S.resolve("secret.example.yaml");
    static final Path README = K8S.resolve("../README.md").normalize();

    private ManifestFiles() {}

    /** One document of a file, and where it came from, for messages. */
    record Document(String where, JsonNode tree) {}

    /** Every overlay's folder. */
    static List<Path> overlays() {
        try (Stream<Path> dirs = Files.list(OVERLAYS)) {
            return dirs.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The documents of the base's resources, of an overlay's patches and resources, or of any folder's. */
    static List<Document> in(Path dir) {
        List<Document> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")
                            && !f.getFileName().toString().equals("kustomization.yaml"))
                    .sorted()
                    .toList()) {
                out.addAll(read(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Every file's documents: the base, each overlay's, and the example Secret. */
    static List<Document> all() {
        List<Document> out = new ArrayList<>(in(BASE));
        overlays().forEach(o -> out.addAll(in(o)));
        out.addAll(read(SECRET_EXAMPLE));
        return out;
    }

    static List<Document> read(Path file) {
        try {
            return documents(K8S.relativize(file).toString(), Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Document> documents(String source, String yaml) {
        List<JsonNode> docs = StrictManifests.documents(yaml);
        List<Document> out = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            out.add(new Document(source + " #" + (i + 1), docs.get(i)));
        }
        return out;
    }
}
