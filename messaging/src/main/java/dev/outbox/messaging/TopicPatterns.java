package dev.outbox.messaging;

/**
 * A topic exchange's binding key as a regular expression, for asking a database which parked rows
 * a binding would route now. The expression is PostgreSQL's (an ARE, for {@code ~}), and it
 * matches the routing key with a dot in front of each of its words, so {@code #} (zero or more
 * words) can take its dot along or leave nothing behind: in SQL, {@code CASE WHEN routing_key =
 * '' THEN '' ELSE '.' || routing_key END}, the empty key having no word.
 *
 * <p>The broker's rules: the key and the binding are split into words on {@code .}, a word may be
 * empty, and the empty key (or binding) has no word at all; {@code *} matches exactly one word,
 * {@code #} zero or more, any other word itself.
 */
public final class TopicPatterns {
    private TopicPatterns() {}

    /** The expression matching a key so written exactly when the broker routes it by {@code bindingKey}. */
    public static String regex(String bindingKey) {
        if (bindingKey.isEmpty()) {
            return "^$"; // no word: the empty key only
        }
        StringBuilder regex = new StringBuilder("^");
        for (String word : bindingKey.split("\\.", -1)) {
            switch (word) {
                case "*" -> regex.append("\\.[^.]*");
                case "#" -> regex.append("(?:\\.[^.]*)*");
                default -> {
                    regex.append("\\.");
                    literal(regex, word);
                }
            }
        }
        return regex.append('$').toString();
    }

    /**
     * Every ASCII character other than a letter or digit escaped with a backslash (PostgreSQL reads
     * {@code \} before such a character as the character itself); letters, digits and anything
     * beyond ASCII are never special and stand as they are.
     */
    private static void literal(StringBuilder regex, String word) {
        word.codePoints().forEach(c -> {
            boolean plain = c >= 128 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!plain) {
                regex.append('\\');
            }
            regex.appendCodePoint(c);
        });
    }
}
