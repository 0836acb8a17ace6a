package dev.outbox.kernel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Every file under one folder of the classpath, in whichever folders and jars hold it: how the
 * catalogues of contracts and topology find what each module ships, with no index to keep.
 */
public final class ClasspathFiles {
    private ClasspathFiles() {}

    /** A file found: its path relative to the classpath root ({@code contracts/x/v1.schema.json}) and its URL. */
    public record Found(String name, URL url) {}

    /**
     * The regular files under {@code root} (up to two folders deep), sorted by name within each
     * classpath entry.
     *
     * @throws IllegalStateException for a classpath entry that cannot be listed (not a folder or a jar)
     */
    public static List<Found> under(ClassLoader loader, String root) {
        List<Found> out = new ArrayList<>();
        try {
            Enumeration<URL> roots = loader.getResources(root);
            while (roots.hasMoreElements()) {
                URL url = roots.nextElement();
                switch (url.getProtocol()) {
                    case "file" -> inFolder(url, out);
                    case "jar" -> inJar(url, root, out);
                    default -> throw new IllegalStateException("cannot list the files in " + url);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("listing " + root + " on the classpath", e);
        }
        return out;
    }

    private static void inFolder(URL root, List<Found> out) throws IOException {
        Path dir;
        try {
            dir = Path.of(root.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot read " + root, e);
        }
        try (Stream<Path> files = Files.walk(dir, 2)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.add(new Found(
                        dir.getParent().relativize(p).toString().replace('\\', '/'),
                        p.toUri().toURL()));
            }
        }
    }

    private static void inJar(URL root, String folder, List<Found> out) throws IOException {
        JarURLConnection connection = (JarURLConnection) root.openConnection();
        connection.setUseCaches(false);
        URL jarUrl = connection.getJarFileURL();
        List<String> names = new ArrayList<>();
        try (JarFile jar = connection.getJarFile()) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                JarEntry entry = e.nextElement();
                if (!entry.isDirectory() && entry.getName().startsWith(folder + "/")) {
                    names.add(entry.getName());
                }
            }
        }
        Collections.sort(names);
        for (String name : names) {
            out.add(new Found(name, new URL("jar:" + jarUrl + "!/" + name)));
        }
    }
}
