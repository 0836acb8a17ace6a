package dev.outbox.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * The comments of a Java source file (javadoc, block and line comments, never the text of a string
 * or character literal), each as one line of text: a javadoc's leading {@code *} dropped and its
 * lines joined with a space, consecutive {@code //} lines joined too, so a citation that wraps a line
 * reads as one. Each character keeps the source line it came from.
 */
final class JavaComments {
    /** One comment's text; {@code lines[i]} is the source line (1-based) of {@code text.charAt(i)}. */
    record Comment(String text, int[] lines) {
        int lineOf(int offset) {
            return lines[Math.min(offset, lines.length - 1)];
        }
    }

    private JavaComments() {}

    static List<Comment> of(String source) {
        List<Comment> out = new ArrayList<>();
        Builder lineComments = null;
        int lastLineComment = -1;
        int line = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
                if (lineComments == null || lastLineComment != line - 1) {
                    if (lineComments != null) {
                        out.add(lineComments.build());
                    }
                    lineComments = new Builder();
                } else {
                    lineComments.add(' ', line);
                }
                lineComments.add(source.substring(i + 2, end), line);
                lastLineComment = line;
                i = end;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end;
                Builder b = new Builder();
                String[] parts = source.substring(i + 2, end).split("\n", -1);
                for (int k = 0; k < parts.length; k++) {
                    String part = parts[k];
                    if (k > 0) {
                        b.add(' ', line);
                        line++;
                        part = part.replaceFirst("^\\s*\\*(?!/) ?", "");
                    }
                    b.add(part, line);
                }
                out.add(b.build());
                i = end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end;
                line += count(source, i, end);
                i = end + 3;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                // an unclosed literal ends at its line break, which the loop then counts
                i = j < n && source.charAt(j) == c ? j + 1 : j;
            } else {
                i++;
            }
        }
        if (lineComments != null) {
            out.add(lineComments.build());
        }
        return out;
    }

    private static int count(String s, int from, int to) {
        int lines = 0;
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == '\n') {
                lines++;
            }
        }
        return lines;
    }

    private static final class Builder {
        private final StringBuilder text = new StringBuilder();
        private final List<Integer> lines = new ArrayList<>();

        void add(String s, int line) {
            for (int k = 0; k < s.length(); k++) {
                add(s.charAt(k), line);
            }
        }

        void add(char c, int line) {
            text.append(c);
            lines.add(line);
        }

        Comment build() {
            int[] l = lines.stream().mapToInt(Integer::intValue).toArray();
            return new Comment(text.toString(), l.length == 0 ? new int[] {0} : l);
        }
    }
}
