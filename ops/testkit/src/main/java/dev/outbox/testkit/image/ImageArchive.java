package dev.outbox.testkit.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * An image as {@code docker save} and {@code jib:buildTar} write it ({@code manifest.json}, a config
 * file, one tar per layer, gzipped or not), read without a container engine: its config, its
 * layers, the files they leave once applied in order, and those files unpacked into a directory.
 */
public final class ImageArchive {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WHITEOUT = ".wh.";
    private static final String OPAQUE = ".wh..wh..opq";

    private final Path tar;
    private final String tag;
    private final JsonNode config;
    private final List<Layer> layers;

    /** One layer: its file in the archive, its size there, and its entries in archive order. */
    public record Layer(String file, long archivedSize, List<Entry> entries) {
        public long unpackedSize() {
            return entries.stream().mapToLong(Entry::size).sum();
        }
    }

    /** A file, directory or link of a layer, its path absolute ({@code /opt/java/bin/java}). */
    public record Entry(String path, Kind kind, int mode, long size, long uid, long gid, String linkTarget) {
        public boolean executable() {
            return kind == Kind.FILE && (mode & 0111) != 0;
        }

        public String name() {
            return path.substring(path.lastIndexOf('/') + 1);
        }
    }

    public enum Kind {
        FILE,
        DIRECTORY,
        SYMLINK,
        HARDLINK,
        OTHER
    }

    private ImageArchive(Path tar, String tag, JsonNode config, List<Layer> layers) {
        this.tar = tar;
        this.tag = tag;
        this.config = config;
        this.layers = layers;
    }

    public static ImageArchive read(Path tar) {
        try {
            JsonNode manifest = JSON.readTree(member(tar, "manifest.json"));
            if (!manifest.isArray() || manifest.size() != 1) {
                throw new IllegalArgumentException(tar + ": manifest.json must describe one image");
            }
            JsonNode image = manifest.get(0);
            JsonNode config = JSON.readTree(member(tar, image.path("Config").asText()));
            Map<String, Layer> byFile = new HashMap<>();
            List<String> order = new ArrayList<>();
            image.path("Layers").forEach(l -> order.add(l.asText()));
            try (TarArchiveInputStream outer = open(tar)) {
                for (TarArchiveEntry e = outer.getNextEntry(); e != null; e = outer.getNextEntry()) {
                    String name = clean(e.getName());
                    if (order.contains(name)) {
                        byFile.put(name, new Layer(name, e.getSize(), entries(outer)));
                    }
                }
            }
            List<Layer> layers = new ArrayList<>();
            for (String file : order) {
                Layer layer = byFile.get(file);
                if (layer == null) {
                    throw new IllegalArgumentException(tar + ": manifest.json names a layer it lacks: " + file);
                }
                layers.add(layer);
            }
            JsonNode tags = image.path("RepoTags");
            return new ImageArchive(tar, tags.isEmpty() ? "" : tags.get(0).asText(), config, List.copyOf(layers));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read image " + tar, e);
        }
    }

    public Path path() {
        return tar;
    }

    /** The first {@code RepoTags} entry, {@code outbox-api:1.0.0-SNAPSHOT}. */
    public String tag() {
        return tag;
    }

    public long archiveSize() {
        try {
            return Files.size(tar);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public List<String> entrypoint() {
        return strings(config.path("config").path("Entrypoint"));
    }

    public List<String> cmd() {
        return strings(config.path("config").path("Cmd"));
    }

    /** {@code User} as the config says it, empty when the image runs as root by default. */
    public String user() {
        return config.path("config").path("User").asText("");
    }

    /** {@code Env}, in order. */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String pair : strings(config.path("config").path("Env"))) {
            int eq = pair.indexOf('=');
            env.put(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? "" : pair.substring(eq + 1));
        }
        return env;
    }

    /**
     * What made each layer, from the config's history ({@code dependencies}, {@code classes}, or
     * the base's own line), one for each layer.
     */
    public List<String> layerHistory() {
        List<String> made = new ArrayList<>();
        for (JsonNode h : config.path("history")) {
            if (!h.path("empty_layer").asBoolean(false)) {
                made.add(
                        h.hasNonNull("comment")
                                ? h.get("comment").asText()
                                : h.path("created_by").asText("").replaceAll(":.*", ""));
            }
        }
        return made;
    }

    /** {@code ExposedPorts}, such as {@code 8080/tcp}. */
    public List<String> exposedPorts() {
        List<String> ports = new ArrayList<>();
        config.path("config").path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        return ports;
    }

    public List<Layer> layers() {
        return layers;
    }

    /** The file system the layers leave, whiteouts applied, by absolute path. */
    public Map<String, Entry> files() {
        TreeMap<String, Entry> files = new TreeMap<>();
        for (Layer layer : layers) {
            for (Entry e : layer.entries()) {
                String parent = e.path().substring(0, e.path().lastIndexOf('/'));
                if (e.name().equals(OPAQUE)) {
                    files.subMap(parent + "/", parent + "0").clear();
                } else if (e.name().startsWith(WHITEOUT)) {
                    String gone = parent + "/" + e.name().substring(WHITEOUT.length());
                    files.remove(gone);
                    files.subMap(gone + "/", gone + "0").clear();
                } else {
                    files.put(e.path(), e);
                }
            }
        }
        return files;
    }

    /** Looks a command up the way a runtime does: as given when it has a slash, else on the image's PATH. */
    public Optional<Entry> resolve(String command) {
        Map<String, Entry> files = files();
        if (command.contains("/")) {
            return Optional.ofNullable(files.get(command));
        }
        for (String dir : environment().getOrDefault("PATH", "").split(":")) {
            Entry found = files.get(dir.replaceAll("/+$", "") + "/" + command);
            if (found != null) {
                return Optional.of(found);
            }
        }
        return Optional.empty();
    }

    /**
     * Unpacks the layers into {@code dir}, in order, as a runtime does: whiteouts remove what lower
     * layers left, modes (the sticky bit too) and, when this process may, owners are kept.
     */
    public void unpack(Path dir) {
        try {
            Files.createDirectories(dir);
            Path root = dir.toRealPath();
            boolean chown = ImageRoot.isRoot();
            Map<Path, Integer> dirModes = new TreeMap<>(Comparator.reverseOrder());
            for (Layer layer : layers) {
                try (TarArchiveInputStream outer = open(tar)) {
                    for (TarArchiveEntry e = outer.getNextEntry(); e != null; e = outer.getNextEntry()) {
                        if (clean(e.getName()).equals(layer.file())) {
                            extract(layerStream(outer), root, chown, dirModes);
                            break;
                        }
                    }
                }
            }
            // last, deepest first: a directory without a write bit would refuse its own files
            for (Map.Entry<Path, Integer> d : dirModes.entrySet()) {
                Files.setAttribute(d.getKey(), "unix:mode", d.getValue(), LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + tar + " into " + dir, e);
        }
    }

    private static void extract(TarArchiveInputStream in, Path root, boolean chown, Map<Path, Integer> dirModes)
            throws IOException {
        for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
            String path = absolute(e.getName());
            if (path.equals("/")) {
                continue;
            }
            Path target = inside(root, path);
            String name = target.getFileName().toString();
            if (name.equals(OPAQUE)) {
                try (Stream<Path> children = Files.list(target.getParent())) {
                    for (Iterator<Path> it = children.iterator(); it.hasNext(); ) {
                        deleteTree(it.next());
                    }
                }
                continue;
            }
            if (name.startsWith(WHITEOUT)) {
                deleteTree(target.resolveSibling(name.substring(WHITEOUT.length())));
                continue;
            }
            Files.createDirectories(target.getParent());
            if (e.isDirectory()) {
                if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                    deleteTree(target);
                    Files.createDirectory(target);
                }
                dirModes.put(target, e.getMode() & 07777);
            } else {
                deleteTree(target);
                if (e.isSymbolicLink()) {
                    Files.createSymbolicLink(target, Path.of(e.getLinkName()));
                } else if (e.isLink()) {
                    Files.createLink(target, inside(root, absolute(e.getLinkName())));
                } else if (e.isFile()) {
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    Files.setAttribute(target, "unix:mode", e.getMode() & 07777);
                } else {
                    // devices and fifos belong to the runtime, not to an image of ours
                    throw new IOException("unexpected entry type in a layer: " + path);
                }
            }
            if (chown) {
                Files.setAttribute(target, "unix:uid", (int) e.getLongUserId(), LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(target, "unix:gid", (int) e.getLongGroupId(), LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    private static Path inside(Path root, String absolute) throws IOException {
        Path target = root.resolve(absolute.substring(1)).normalize();
        if (!target.startsWith(root)) {
            throw new IOException("a layer entry points outside the image: " + absolute);
        }
        return target;
    }

    static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            // a directory left without its write bit by an earlier unpack cannot lose its files
            Files.setAttribute(path, "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
            try (Stream<Path> children = Files.list(path)) {
                for (Iterator<Path> it = children.iterator(); it.hasNext(); ) {
                    deleteTree(it.next());
                }
            }
        }
        Files.delete(path);
    }

    private static List<Entry> entries(TarArchiveInputStream outer) throws IOException {
        List<Entry> entries = new ArrayList<>();
        TarArchiveInputStream in = layerStream(outer);
        for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
            Kind kind = e.isDirectory()
                    ? Kind.DIRECTORY
                    : e.isSymbolicLink()
                            ? Kind.SYMLINK
                            : e.isLink() ? Kind.HARDLINK : e.isFile() ? Kind.FILE : Kind.OTHER;
            entries.add(new Entry(
                    absolute(e.getName()),
                    kind,
                    e.getMode() & 07777,
                    e.getSize(),
                    e.getLongUserId(),
                    e.getLongGroupId(),
                    e.getLinkName()));
        }
        return List.copyOf(entries);
    }

    /** The current member of the outer archive as a tar, gunzipped when it starts with gzip's magic bytes. */
    private static TarArchiveInputStream layerStream(TarArchiveInputStream outer) throws IOException {
        InputStream member = new BufferedInputStream(new NonClosing(outer));
        member.mark(2);
        int b1 = member.read();
        int b2 = member.read();
        member.reset();
        return new TarArchiveInputStream(b1 == 0x1f && b2 == 0x8b ? new GzipCompressorInputStream(member) : member);
    }

    private static byte[] member(Path tar, String name) throws IOException {
        try (TarArchiveInputStream in = open(tar)) {
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (clean(e.getName()).equals(name)) {
                    return in.readAllBytes();
                }
            }
        }
        throw new IllegalArgumentException(tar + " has no " + name);
    }

    private static TarArchiveInputStream open(Path tar) throws IOException {
        return new TarArchiveInputStream(new BufferedInputStream(Files.newInputStream(tar), 1 << 16));
    }

    private static String clean(String name) {
        return name.startsWith("./") ? name.substring(2) : name;
    }

    private static String absolute(String name) {
        String p = "/" + clean(name);
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return List.copyOf(out);
    }

    /** Keeps a layer reader from closing the outer archive it reads from. */
    private static final class NonClosing extends java.io.FilterInputStream {
        NonClosing(InputStream in) {
            super(in);
        }

        @Override
        public void close() {}
    }
}
