package dev.outbox.api.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A UTF-8 text file shipped in the api jar beside a class (a page, a script, a document). */
public final class BundledText {
    private BundledText() {}

    /** The file {@code name} next to {@code owner}; a missing one is a broken build, not a 404. */
    public static String read(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the api jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
