package dev.outbox.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The run's results as Markdown (printed and written to {@code results.md}) and PNG charts, in a
 * results folder. Sections are added as scenarios finish, so a failed run still leaves what it
 * measured.
 */
final class Report {
    private final Path dir;
    private final StringBuilder md = new StringBuilder();

    Report(Path dir, String title) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        md.append("# ").append(title).append("\n\n");
        flush();
    }

    Path dir() {
        return dir;
    }

    void text(String paragraph) throws IOException {
        md.append(paragraph).append("\n\n");
        System.out.println(paragraph + "\n");
        flush();
    }

    void table(String heading, List<String> headers, List<List<String>> rows) throws IOException {
        StringBuilder t = new StringBuilder();
        t.append("## ").append(heading).append("\n\n");
        t.append("| ").append(String.join(" | ", headers)).append(" |\n");
        t.append("|").append("---|".repeat(headers.size())).append("\n");
        for (List<String> r : rows) {
            t.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        md.append(t).append("\n");
        System.out.println(t);
        flush();
    }

    /** A bar chart of one series of values by category, as {@code file} in the results folder. */
    void barChart(String file, String title, String axis, List<String> categories, List<Double> values)
            throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int i = 0; i < categories.size(); i++) {
            data.addValue(values.get(i), axis, categories.get(i));
        }
        JFreeChart chart =
                ChartFactory.createBarChart(title, null, axis, data, PlotOrientation.HORIZONTAL, false, false, false);
        style(chart);
        ChartUtils.saveChartAsPNG(dir.resolve(file).toFile(), chart, 900, 120 + 45 * categories.size());
        md.append("![").append(title).append("](").append(file).append(")\n\n");
        flush();
    }

    /** A grouped bar chart: one bar per series in each category. */
    void groupedChart(
            String file, String title, String axis, List<String> series, List<String> categories, double[][] values)
            throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int s = 0; s < series.size(); s++) {
            for (int c = 0; c < categories.size(); c++) {
                data.addValue(values[s][c], series.get(s), categories.get(c));
            }
        }
        JFreeChart chart =
                ChartFactory.createBarChart(title, null, axis, data, PlotOrientation.VERTICAL, true, false, false);
        style(chart);
        ChartUtils.saveChartAsPNG(dir.resolve(file).toFile(), chart, 900, 500);
        md.append("![").append(title).append("](").append(file).append(")\n\n");
        flush();
    }

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        BarRenderer r = (BarRenderer) plot.getRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        r.setSeriesPaint(0, new Color(0x2b6cb0));
        r.setSeriesPaint(1, new Color(0xdd6b20));
        r.setSeriesPaint(2, new Color(0x38a169));
    }

    private void flush() throws IOException {
        Files.writeString(dir.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String ratio(double a, double b) {
        return String.format(Locale.ROOT, "%.2f", a / b);
    }

    static List<String> row(String... cells) {
        return new ArrayList<>(List.of(cells));
    }
}
