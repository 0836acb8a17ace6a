package dev.outbox.ctl;

/** A text progress bar such as {@code [#####-----] 120/300}. Pure. */
public final class ProgressBar {
    private ProgressBar() {}

    /**
     * {@code done} of {@code total} drawn with {@code width} cells; {@code done} is clamped to
     * {@code 0..total}, and a total of 0 counts as complete.
     */
    public static String render(long done, long total, int width) {
        if (width < 1) {
            throw new IllegalArgumentException("width must be at least 1");
        }
        long t = Math.max(0, total);
        long d = Math.max(0, Math.min(done, t));
        int filled = t == 0 ? width : (int) (d * width / t);
        return "[" + "#".repeat(filled) + "-".repeat(width - filled) + "] " + d + "/" + t;
    }
}
