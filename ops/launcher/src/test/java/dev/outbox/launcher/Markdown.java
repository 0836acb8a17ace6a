package dev.outbox.launcher;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Markdown document as GitHub renders it, as far as the documentation checks need: its text
 * outside fenced code blocks, cut into blocks (runs of non-blank lines, so a code span or a link
 * may wrap a line but never a paragraph), and the anchors its headings make.
 */
final class Markdown {
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
    private static final Pattern ATX = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");
    private static final Pattern SETEXT = Pattern.compile("^ {0,3}(=+|-+)\\s*$");
    private static final Pattern NOT_A_PARAGRAPH = Pattern.compile("^\\s*([|>*+-]|\\d+\\.|#)");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*\\b(?:name|id)=\"([^\"]+)\"");
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");
    private static final Pattern HTML_TAG = Pattern.compile("<[^>]+>");
    private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]");

    /** A run of non-blank lines outside fenced code, starting at {@code line} (1-based). */
    record Block(int line, String text) {
        /** The line of a position in {@link #text}. */
        int lineOf(int offset) {
            int l = line;
            for (int i = 0; i < offset; i++) {
                if (text.charAt(i) == '\n') {
                    l++;
                }
            }
            return l;
        }
    }

    private final List<Block> blocks = new ArrayList<>();
    private final List<String> headings = new ArrayList<>();
    private final Set<String> anchors = new LinkedHashSet<>();

    Markdown(String text) {
        String[] lines = text.split("\r?\n", -1);
        String fence = null;
        StringBuilder block = null;
        int blockLine = 0;
        String previous = null;
        Map<String, Integer> slugs = new HashMap<>();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher f = FENCE.matcher(line);
            if (fence != null || f.find()) {
                if (fence == null) {
                    fence = f.group(1);
                } else if (line.strip().startsWith(fence)) {
                    fence = null;
                }
                block = flush(block, blockLine);
                previous = null;
                continue;
            }
            if (line.isBlank()) {
                block = flush(block, blockLine);
                previous = null;
                continue;
            }
            if (block == null) {
                block = new StringBuilder(line);
                blockLine = i + 1;
            } else {
                block.append('\n').append(line);
            }
            Matcher atx = ATX.matcher(line);
            if (atx.matches()) {
                heading(atx.group(1), slugs);
                previous = null;
                continue;
            }
            if (SETEXT.matcher(line).matches()
                    && previous != null
                    && !NOT_A_PARAGRAPH.matcher(previous).find()) {
                heading(previous.strip(), slugs);
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) {
                anchors.add(a.group(1));
            }
            previous = line;
        }
        flush(block, blockLine);
    }

    private StringBuilder flush(StringBuilder block, int line) {
        if (block != null) {
            blocks.add(new Block(line, block.toString()));
        }
        return null;
    }

    private void heading(String text, Map<String, Integer> slugs) {
        headings.add(text);
        String slug = slug(text);
        Integer seen = slugs.get(slug);
        slugs.put(slug, seen == null ? 0 : seen + 1);
        anchors.add(seen == null ? slug : slug + "-" + (seen + 1));
    }

    /**
     * GitHub's anchor for a heading: its rendered text (a link's text, no HTML tags) in lower case,
     * everything but letters, digits, spaces, hyphens and underscores removed, each space a hyphen.
     * A repeated heading's anchor gets {@code -1}, {@code -2}, ... ({@link #anchors()}).
     */
    static String slug(String heading) {
        String text = INLINE_LINK.matcher(heading).replaceAll("$1");
        text = HTML_TAG.matcher(text).replaceAll("");
        return NOT_IN_SLUG
                .matcher(text.strip().toLowerCase(Locale.ROOT))
                .replaceAll("")
                .replace(' ', '-');
    }

    List<Block> blocks() {
        return blocks;
    }

    /** The headings' text, in order, fenced code excluded. */
    List<String> headings() {
        return headings;
    }

    /** Every anchor a link may name: the headings' slugs and explicit {@code <a name|id="...">}. */
    Set<String> anchors() {
        return anchors;
    }
}
