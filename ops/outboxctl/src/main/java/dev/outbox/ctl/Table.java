package dev.outbox.ctl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A fixed-width text table: one header row, columns as wide as their widest cell (capped per
 * column, longer cells are cut and end in {@code ...}), two spaces between columns, numeric
 * columns aligned right. Pure: builds a string, prints nothing.
 */
public final class Table {
    static final String ELLIPSIS = "...";
    private static final String GAP = "  ";

    private final String[] headers;
    private final int[] maxWidths;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    private Table(String[] headers) {
        this.headers = headers.clone();
        this.maxWidths = new int[headers.length];
        Arrays.fill(maxWidths, Integer.MAX_VALUE);
        this.rightAligned = new boolean[headers.length];
    }

    public static Table of(String... headers) {
        if (headers.length == 0) {
            throw new IllegalArgumentException("a table needs at least one column");
        }
        return new Table(headers);
    }

    /** Cells of column {@code column} longer than {@code width} are cut (width at least 4). */
    public Table maxWidth(int column, int width) {
        if (width < ELLIPSIS.length() + 1) {
            throw new IllegalArgumentException("width must be at least " + (ELLIPSIS.length() + 1));
        }
        maxWidths[column] = width;
        return this;
    }

    /** Aligns column {@code column} (header included) to the right, for numbers. */
    public Table rightAlign(int column) {
        rightAligned[column] = true;
        return this;
    }

    /** Adds a row; {@code null} cells print as {@code -}, missing trailing cells as empty. */
    public Table row(Object... cells) {
        if (cells.length > headers.length) {
            throw new IllegalArgumentException(
                    "row has " + cells.length + " cells, table has " + headers.length + " columns");
        }
        String[] r = new String[headers.length];
        for (int i = 0; i < headers.length; i++) {
            r[i] = i >= cells.length ? "" : cells[i] == null ? "-" : clean(String.valueOf(cells[i]));
        }
        rows.add(r);
        return this;
    }

    public int size() {
        return rows.size();
    }

    /** The table, each line ending in {@code \n}, without trailing spaces. */
    public String render() {
        int[] widths = new int[headers.length];
        for (int c = 0; c < headers.length; c++) {
            widths[c] = headers[c].length();
            for (String[] r : rows) {
                widths[c] = Math.max(widths[c], Math.min(r[c].length(), maxWidths[c]));
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, widths);
        for (String[] r : rows) {
            line(out, r, widths);
        }
        return out.toString();
    }

    private void line(StringBuilder out, String[] cells, int[] widths) {
        StringBuilder l = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            String cell = cut(cells[c], widths[c]);
            if (c > 0) {
                l.append(GAP);
            }
            String pad = " ".repeat(widths[c] - cell.length());
            l.append(rightAligned[c] ? pad + cell : cell + pad);
        }
        out.append(stripTrailing(l)).append('\n');
    }

    /** {@code value} cut to {@code width} characters, the cut marked with {@code ...}. */
    static String cut(String value, int width) {
        if (value.length() <= width) {
            return value;
        }
        return value.substring(0, width - ELLIPSIS.length()) + ELLIPSIS;
    }

    /** Control characters (a newline in an error message) would break the grid: shown as spaces. */
    private static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            b.append(Character.isISOControl(ch) ? ' ' : ch);
        }
        return b.toString();
    }

    private static String stripTrailing(StringBuilder b) {
        int end = b.length();
        while (end > 0 && b.charAt(end - 1) == ' ') {
            end--;
        }
        return b.substring(0, end);
    }
}
