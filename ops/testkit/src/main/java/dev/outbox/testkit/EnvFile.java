package dev.outbox.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A settings file of {@code NAME=value} lines as bash reads it with {@code set -a; . file; set +a},
 * for the tools that read {@code ops/cluster.sh}'s {@code cluster.env} without a shell (the
 * failover test, the benchmarks). Values are shell words: single-quoted text is taken as it is,
 * a backslash outside quotes takes the next character as it is, and plain characters stand for
 * themselves. A character the shell would read as something else (an unquoted {@code &}, space,
 * {@code ;}, {@code $}...) is refused with the line it is on, rather than read differently from
 * the shell: that difference is how an unquoted JDBC URL once lost its value.
 */
public final class EnvFile {
    // what bash reads specially in an assignment (no globbing or brace expansion happens there)
    private static final String SPECIAL = "&;|<>()$`\"~";

    private EnvFile() {}

    public static Map<String, String> read(Path file) throws IOException {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(file + " not found: run ops/cluster.sh up first");
        }
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** The assignments of {@code text}, in order; {@code source} names it in errors. */
    public static Map<String, String> parse(String text, String source) {
        Map<String, String> values = new LinkedHashMap<>();
        int i = 0;
        int line = 1;
        while (i < text.length()) {
            int start = line;
            i = skipBlanks(text, i);
            if (i >= text.length()) {
                break;
            }
            char c = text.charAt(i);
            if (c == '\n') {
                i++;
                line++;
                continue;
            }
            if (c == '#') {
                i = endOfLine(text, i);
                continue;
            }
            if (text.startsWith("export ", i)) {
                i = skipBlanks(text, i + "export ".length());
            }
            int nameEnd = i;
            while (nameEnd < text.length() && isNameChar(text.charAt(nameEnd), nameEnd == i)) {
                nameEnd++;
            }
            if (nameEnd == i || nameEnd >= text.length() || text.charAt(nameEnd) != '=') {
                throw new IllegalArgumentException(source + ":" + start + ": not a NAME=value assignment");
            }
            String name = text.substring(i, nameEnd);
            StringBuilder value = new StringBuilder();
            i = nameEnd + 1;
            word:
            while (i < text.length()) {
                c = text.charAt(i);
                switch (c) {
                    case '\'' -> {
                        int close = text.indexOf('\'', i + 1);
                        if (close < 0) {
                            throw new IllegalArgumentException(source + ":" + start + ": unterminated ' in " + name);
                        }
                        String quoted = text.substring(i + 1, close);
                        line += (int) quoted.chars().filter(ch -> ch == '\n').count();
                        value.append(quoted);
                        i = close + 1;
                    }
                    case '\\' -> {
                        if (i + 1 >= text.length()) {
                            throw new IllegalArgumentException(source + ":" + start + ": \\ at the end of " + name);
                        }
                        char next = text.charAt(i + 1);
                        if (next == '\n') {
                            line++; // a line continuation: the shell removes both
                        } else {
                            value.append(next);
                        }
                        i += 2;
                    }
                    case ' ', '\t', '\n' -> {
                        break word;
                    }
                    default -> {
                        if (SPECIAL.indexOf(c) >= 0) {
                            throw new IllegalArgumentException(source + ":" + start + ": unquoted " + c + " in " + name
                                    + ": the shell would not read it as part of the value; single-quote the value");
                        }
                        value.append(c);
                        i++;
                    }
                }
            }
            // after the word: blanks, then the end of the line or a comment, nothing the shell would run
            i = skipBlanks(text, i);
            if (i < text.length() && text.charAt(i) != '\n') {
                if (text.charAt(i) != '#') {
                    throw new IllegalArgumentException(source + ":" + start + ": text after the value of " + name
                            + " that the shell would run as a command; single-quote the value");
                }
                i = endOfLine(text, i);
            }
            values.put(name, value.toString());
        }
        return values;
    }

    private static boolean isNameChar(char c, boolean first) {
        return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
    }

    private static int skipBlanks(String text, int i) {
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int endOfLine(String text, int i) {
        int end = text.indexOf('\n', i);
        return end < 0 ? text.length() : end;
    }
}
