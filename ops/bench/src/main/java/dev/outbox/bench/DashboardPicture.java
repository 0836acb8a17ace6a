package dev.outbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.PaintScale;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.DefaultXYZDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The Grafana dashboard drawn as Grafana lays it out (its 24-column grid, rows as headings), each
 * panel from what Prometheus answered to that panel's own queries over a run: time series as lines
 * with the panel's thresholds, the histogram's buckets as a heatmap, text panels as text. The
 * x axis is minutes into the run; the run's phases are marked on every time series.
 */
final class DashboardPicture {
    private static final int COLUMN = 78;
    private static final int UNIT = 34;
    private static final Color[] PALETTE = {
        new Color(0x3274D9),
        new Color(0xFF780A),
        new Color(0x37872D),
        new Color(0xC4162A),
        new Color(0x8F3BB8),
        new Color(0x705DA0),
        new Color(0xE0B400),
        new Color(0x1F78C1)
    };
    private static final Pattern LEGEND = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");

    /** One event of the run, drawn on every time series: an instant, or a span ({@code to > from}). */
    record Phase(String letter, double fromSeconds, double toSeconds, String what) {}

    private DashboardPicture() {}

    /**
     * Draws {@code dashboard}'s panels from {@code results} (panel id, "/", refId to Prometheus's
     * {@code result} array of that query) as one PNG.
     */
    static void draw(
            JsonNode dashboard,
            Map<String, JsonNode> results,
            long startEpochSeconds,
            double runSeconds,
            List<Phase> phases,
            List<String> caption,
            Path png)
            throws IOException {
        int rows = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            JsonNode grid = panel.path("gridPos");
            rows = Math.max(rows, grid.path("y").asInt() + grid.path("h").asInt());
        }
        int width = 24 * COLUMN;
        Font captionFont = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        List<String> lines = new ArrayList<>();
        Graphics2D measuring = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
        measuring.setFont(captionFont);
        for (String paragraph : caption) {
            lines.addAll(wrap(paragraph, measuring.getFontMetrics(), width - 24));
        }
        int header = 40 + 16 * lines.size();
        int height = header + rows * UNIT + 10;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(new Color(0xF4F5F5));
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
        g.drawString(dashboard.path("title").asText(), 12, 26);
        g.setFont(captionFont);
        for (int i = 0; i < lines.size(); i++) {
            g.drawString(lines.get(i), 12, 46 + 16 * i);
        }
        for (JsonNode panel : dashboard.path("panels")) {
            JsonNode grid = panel.path("gridPos");
            Rectangle2D area = new Rectangle2D.Double(
                    grid.path("x").asInt() * COLUMN + 4,
                    header + grid.path("y").asInt() * UNIT + 4,
                    grid.path("w").asInt() * COLUMN - 8,
                    grid.path("h").asInt() * UNIT - 8);
            switch (panel.path("type").asText()) {
                case "row" -> heading(g, panel, area);
                case "text" -> text(g, panel, area);
                case "heatmap" -> frame(g, heatmap(panel, results, startEpochSeconds, runSeconds), area);
                default -> frame(g, timeSeries(panel, results, startEpochSeconds, runSeconds, phases), area);
            }
        }
        g.dispose();
        ImageIO.write(image, "png", png.toFile());
    }

    private static void heading(Graphics2D g, JsonNode panel, Rectangle2D area) {
        g.setColor(new Color(0x22252B));
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(panel.path("title").asText(), (int) area.getX() + 4, (int) area.getMaxY() - 6);
        g.setColor(new Color(0xC7D0D9));
        g.drawLine((int) area.getX(), (int) area.getMaxY(), (int) area.getMaxX(), (int) area.getMaxY());
    }

    private static void frame(Graphics2D g, JFreeChart chart, Rectangle2D area) {
        chart.draw(g, area);
        g.setColor(new Color(0xD8D9DA));
        g.draw(area);
    }

    private static void text(Graphics2D g, JsonNode panel, Rectangle2D area) {
        g.setColor(Color.WHITE);
        g.fill(area);
        g.setColor(new Color(0xD8D9DA));
        g.draw(area);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        int x = (int) area.getX() + 10;
        int y = (int) area.getY() + 20;
        g.drawString(panel.path("title").asText(), x, y);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        int maxWidth = (int) area.getWidth() - 20;
        y += 22;
        String content =
                panel.path("options").path("content").asText().replace("**", "").replace("`", "");
        for (String paragraph : content.split("\n\n")) {
            for (String line : wrap(paragraph, fm, maxWidth)) {
                g.drawString(line, x, y);
                y += fm.getHeight();
            }
            y += 6;
        }
    }

    /** {@code text} broken into lines no wider than {@code width} at spaces. */
    private static List<String> wrap(String text, FontMetrics fm, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && fm.stringWidth(line + " " + word) > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.length() == 0 ? "" : " ").append(word);
        }
        lines.add(line.toString());
        return lines;
    }

    private static JFreeChart timeSeries(
            JsonNode panel, Map<String, JsonNode> results, long start, double runSeconds, List<Phase> phases) {
        JsonNode defaults = panel.path("fieldConfig").path("defaults");
        String unit = defaults.path("unit").asText("short");
        boolean log = "log"
                .equals(defaults.path("custom")
                        .path("scaleDistribution")
                        .path("type")
                        .asText());
        XYSeriesCollection data = new XYSeriesCollection();
        double top = 0;
        double bottom = Double.MAX_VALUE;
        for (JsonNode target : panel.path("targets")) {
            JsonNode result = results.get(
                    panel.path("id").asInt() + "/" + target.path("refId").asText());
            if (result == null) {
                continue;
            }
            for (JsonNode series : result) {
                XYSeries s = new XYSeries(legend(target.path("legendFormat").asText(), series.path("metric")), false);
                for (JsonNode point : series.path("values")) {
                    double v = point.get(1).asDouble();
                    if (Double.isFinite(v) && (!log || v > 0)) {
                        s.add((point.get(0).asDouble() - start) / 60.0, v);
                        top = Math.max(top, v);
                        bottom = Math.min(bottom, v);
                    } else {
                        s.add((point.get(0).asDouble() - start) / 60.0, null);
                    }
                }
                if (data.getSeriesIndex(s.getKey()) < 0) {
                    data.addSeries(s);
                }
            }
        }
        NumberAxis x = minutesAxis(runSeconds);
        ValueAxis y;
        if (log) {
            LogAxis logAxis = new LogAxis(axisLabel(unit));
            logAxis.setSmallestValue(1e-4);
            logAxis.setNumberFormatOverride(formatter(unit));
            logAxis.setBase(10);
            logAxis.setTickUnit(new NumberTickUnit(1));
            logAxis.setMinorTickMarksVisible(false);
            y = logAxis;
        } else {
            NumberAxis linear = new NumberAxis(axisLabel(unit));
            linear.setAutoRangeIncludesZero(true);
            linear.setNumberFormatOverride(formatter(unit));
            y = linear;
        }
        y.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        y.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.8f));
            // a line needs two neighbouring points: a series of a few isolated ones shows as dots
            renderer.setSeriesShapesVisible(i, defined(data.getSeries(i)) < 10);
            renderer.setSeriesShape(i, new java.awt.geom.Ellipse2D.Double(-2.5, -2.5, 5, 5));
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        style(plot);
        double highest = top;
        for (JsonNode step : defaults.path("thresholds").path("steps")) {
            if (step.path("value").isNumber()) {
                double v = step.path("value").asDouble();
                ValueMarker m = new ValueMarker(v, new Color(0xE02F44), dashed(1.4f));
                m.setLabel("threshold " + formatter(unit).format(v));
                m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
                m.setLabelPaint(new Color(0xC4162A));
                // at the right end: the phases' letters are at the top left of their markers
                m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
                m.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
                plot.addRangeMarker(m);
                highest = Math.max(highest, v);
            }
        }
        // a threshold well above the data is still drawn, so the distance to the alert shows
        if (log) {
            double low = bottom == Double.MAX_VALUE ? 1e-3 : bottom;
            y.setRange(Math.max(1e-4, low / 2), Math.max(highest, low * 10) * 3);
        } else if (highest > 0) {
            y.setRange(0, highest * 1.12);
        } else {
            y.setRange(0, 1);
        }
        mark(plot, phases);
        JFreeChart chart = new JFreeChart(panel.path("title").asText(), titleFont(), plot, data.getSeriesCount() > 0);
        chart.setBackgroundPaint(Color.WHITE);
        if (chart.getLegend() != null) {
            LegendTitle legend = chart.getLegend();
            legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            legend.setFrame(BlockBorder.NONE);
            legend.setPosition(RectangleEdge.BOTTOM);
        } else {
            chart.addSubtitle(new TextTitle("no data"));
        }
        chart.getTitle().setHorizontalAlignment(org.jfree.chart.ui.HorizontalAlignment.LEFT);
        chart.setPadding(new RectangleInsets(2, 4, 2, 8));
        return chart;
    }

    /**
     * The histogram's cumulative buckets, as one query over {@code le} returns them, turned into
     * messages per bucket per step (the difference between neighbouring {@code le}) on a log
     * scale of seconds, coloured by count.
     */
    private static JFreeChart heatmap(JsonNode panel, Map<String, JsonNode> results, long start, double runSeconds) {
        JsonNode target = panel.path("targets").get(0);
        JsonNode result = results.get(
                panel.path("id").asInt() + "/" + target.path("refId").asText());
        List<JsonNode> buckets = new ArrayList<>();
        if (result != null) {
            result.forEach(buckets::add);
        }
        buckets.sort(
                Comparator.comparingDouble(b -> le(b.path("metric").path("le").asText())));
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        List<Double> zs = new ArrayList<>();
        double max = 0;
        double lowest = Double.MAX_VALUE;
        double highest = 0;
        for (int b = 0; b < buckets.size(); b++) {
            double upper = le(buckets.get(b).path("metric").path("le").asText());
            if (Double.isInfinite(upper)) {
                continue;
            }
            Map<Double, Double> below = new java.util.HashMap<>();
            if (b > 0) {
                buckets.get(b - 1)
                        .path("values")
                        .forEach(v -> below.put(v.get(0).asDouble(), v.get(1).asDouble()));
            }
            for (JsonNode point : buckets.get(b).path("values")) {
                double at = point.get(0).asDouble();
                double count = point.get(1).asDouble() - below.getOrDefault(at, 0.0);
                if (count > 0 && Double.isFinite(count)) {
                    xs.add((at - start) / 60.0);
                    ys.add(Math.log10(upper));
                    zs.add(count);
                    max = Math.max(max, count);
                    lowest = Math.min(lowest, upper);
                    highest = Math.max(highest, upper);
                }
            }
        }
        DefaultXYZDataset data = new DefaultXYZDataset();
        data.addSeries("messages", new double[][] {unbox(xs), unbox(ys), unbox(zs)});
        XYBlockRenderer renderer = new XYBlockRenderer();
        renderer.setBlockWidth(step(results) / 60.0);
        // micrometer's buckets are about four to a power of ten
        renderer.setBlockHeight(0.26);
        renderer.setBlockAnchor(RectangleAnchor.TOP_RIGHT);
        double scaleMax = Math.max(1, max);
        renderer.setPaintScale(new CountScale(scaleMax));
        NumberAxis y = new NumberAxis("seconds (bucket upper bound)");
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new PowerOfTen());
        y.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        y.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        if (highest > 0) {
            y.setRange(Math.floor(Math.log10(lowest)) - 0.3, Math.ceil(Math.log10(highest)) + 0.1);
        }
        XYPlot plot = new XYPlot(data, minutesAxis(runSeconds), y, renderer);
        style(plot);
        JFreeChart chart = new JFreeChart(panel.path("title").asText(), titleFont(), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        chart.getTitle().setHorizontalAlignment(org.jfree.chart.ui.HorizontalAlignment.LEFT);
        chart.addSubtitle(new TextTitle(
                String.format(
                        Locale.ROOT, "messages per bucket per $__rate_interval: pale = 1, dark red = %,.0f", scaleMax),
                new Font(Font.SANS_SERIF, Font.PLAIN, 10),
                Color.DARK_GRAY,
                RectangleEdge.BOTTOM,
                org.jfree.chart.ui.HorizontalAlignment.CENTER,
                org.jfree.chart.ui.VerticalAlignment.CENTER,
                RectangleInsets.ZERO_INSETS));
        chart.setPadding(new RectangleInsets(2, 4, 2, 8));
        return chart;
    }

    private static int defined(XYSeries s) {
        int n = 0;
        for (int i = 0; i < s.getItemCount(); i++) {
            n += s.getY(i) == null ? 0 : 1;
        }
        return n;
    }

    /** The query step the run was read with, from the first series that has two points. */
    private static double step(Map<String, JsonNode> results) {
        for (JsonNode result : results.values()) {
            for (JsonNode series : result) {
                JsonNode v = series.path("values");
                if (v.size() > 1) {
                    return v.get(1).get(0).asDouble() - v.get(0).get(0).asDouble();
                }
            }
        }
        return 1;
    }

    private static double le(String le) {
        return le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
    }

    private static double[] unbox(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static void mark(XYPlot plot, List<Phase> phases) {
        for (Phase p : phases) {
            double from = p.fromSeconds() / 60.0;
            double to = p.toSeconds() / 60.0;
            if (to > from) {
                IntervalMarker band = new IntervalMarker(from, to, new Color(0x40, 0x40, 0x40, 22));
                band.setLabel(p.letter());
                styleLabel(band);
                plot.addDomainMarker(band);
            } else {
                ValueMarker line = new ValueMarker(from, new Color(0x80, 0x80, 0x80), dashed(1f));
                line.setLabel(p.letter());
                styleLabel(line);
                plot.addDomainMarker(line);
            }
        }
    }

    private static void styleLabel(org.jfree.chart.plot.Marker m) {
        m.setLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 10));
        m.setLabelPaint(Color.DARK_GRAY);
        m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
        m.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
    }

    /** The whole run on every panel, whatever each query answered: panels line up as in Grafana. */
    private static NumberAxis minutesAxis(double runSeconds) {
        NumberAxis x = new NumberAxis("minutes into the run");
        x.setRange(0, Math.max(runSeconds, 1) / 60.0);
        x.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        x.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        return x;
    }

    private static void style(XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xE5E5E5));
        plot.setRangeGridlinePaint(new Color(0xE5E5E5));
        plot.setOutlineVisible(false);
    }

    private static Font titleFont() {
        return new Font(Font.SANS_SERIF, Font.BOLD, 13);
    }

    private static BasicStroke dashed(float width) {
        return new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);
    }

    /** Grafana's legend: {@code {{label}}} replaced by the series' value of it. */
    static String legend(String format, JsonNode metric) {
        if (format == null || format.isBlank()) {
            return metric.toString();
        }
        Matcher m = LEGEND.matcher(format);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(
                    out, Matcher.quoteReplacement(metric.path(m.group(1)).asText()));
        }
        m.appendTail(out);
        return out.toString().trim();
    }

    private static String axisLabel(String unit) {
        return switch (unit) {
            case "s" -> "seconds";
            case "ops" -> "per second";
            case "percentunit" -> "share";
            default -> null;
        };
    }

    private static NumberFormat formatter(String unit) {
        if (unit.equals("percentunit")) {
            return new DecimalFormat("0.#%");
        }
        return new DecimalFormat("#,##0.###");
    }

    /** Tick labels of log10(seconds): 0.001 → 1 ms, 1 → 1 s. */
    private static final class PowerOfTen extends NumberFormat {
        @Override
        public StringBuffer format(double exponent, StringBuffer to, FieldPosition pos) {
            double seconds = Math.pow(10, exponent);
            return to.append(
                    seconds < 1
                            ? new DecimalFormat("#,##0.#").format(seconds * 1000) + " ms"
                            : new DecimalFormat("#,##0.#").format(seconds) + " s");
        }

        @Override
        public StringBuffer format(long exponent, StringBuffer to, FieldPosition pos) {
            return format((double) exponent, to, pos);
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            throw new UnsupportedOperationException("tick labels are only written");
        }
    }

    /** Pale orange for one message to dark red for the most, on a log scale (counts span decades). */
    private record CountScale(double max) implements PaintScale {
        @Override
        public double getLowerBound() {
            return 0;
        }

        @Override
        public double getUpperBound() {
            return max;
        }

        @Override
        public Paint getPaint(double value) {
            if (!(value > 0)) {
                return Color.WHITE;
            }
            double t = Math.min(1, Math.log1p(value) / Math.log1p(max));
            Color from = new Color(0xFFE3B8);
            Color to = new Color(0xB0122A);
            return new Color(
                    (int) (from.getRed() + t * (to.getRed() - from.getRed())),
                    (int) (from.getGreen() + t * (to.getGreen() - from.getGreen())),
                    (int) (from.getBlue() + t * (to.getBlue() - from.getBlue())));
        }
    }
}
