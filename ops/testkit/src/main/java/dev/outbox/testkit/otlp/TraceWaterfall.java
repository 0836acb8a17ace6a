package dev.outbox.testkit.otlp;

import dev.outbox.testkit.otlp.OtlpReceiver.ReceivedSpan;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * One trace drawn as a tracing UI shows it: a row per span, in tree order, indented by depth, a
 * bar from its start to its end on one time axis, coloured by the service that reported it. What
 * the README shows of a trace across the API, the relay and a consumer is drawn from the spans
 * those processes really exported.
 */
public final class TraceWaterfall {
    private static final int ROW = 22;
    private static final int LABEL = 470;
    private static final int BARS = 620;
    private static final int TOP = 54;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0x9467bd), new Color(0x8c564b)
    };

    private TraceWaterfall() {}

    /** Writes {@code spans} (one trace) as a PNG; spans whose parent is missing are drawn as roots. */
    public static void write(List<ReceivedSpan> spans, String title, Path png) throws IOException {
        List<ReceivedSpan> ordered = treeOrder(spans);
        Map<String, Integer> depth = depths(spans);
        long t0 = spans.stream().mapToLong(ReceivedSpan::startNanos).min().orElse(0);
        long t1 = spans.stream().mapToLong(ReceivedSpan::endNanos).max().orElse(1);
        double scale = BARS / (double) Math.max(1, t1 - t0);
        Map<String, Color> colours = new LinkedHashMap<>();
        for (ReceivedSpan s : ordered) {
            colours.computeIfAbsent(s.service(), k -> PALETTE[colours.size() % PALETTE.length]);
        }
        int width = LABEL + BARS + 140;
        int height = TOP + ordered.size() * ROW + 40;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, 10, 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        int legend = 10;
        for (Map.Entry<String, Color> c : colours.entrySet()) {
            g.setColor(c.getValue());
            g.fillRect(legend, 30, 12, 12);
            g.setColor(Color.DARK_GRAY);
            g.drawString(c.getKey(), legend + 16, 40);
            legend += 30 + g.getFontMetrics().stringWidth(c.getKey());
        }
        g.setColor(new Color(0xdddddd));
        g.setStroke(new BasicStroke(1f));
        for (int tick = 0; tick <= 4; tick++) {
            int x = LABEL + tick * BARS / 4;
            g.drawLine(x, TOP - 4, x, height - 30);
            g.setColor(Color.GRAY);
            g.drawString(String.format("%.0f ms", (t1 - t0) / 1e6 * tick / 4), x - 10, height - 14);
            g.setColor(new Color(0xdddddd));
        }
        int y = TOP;
        for (ReceivedSpan s : ordered) {
            int indent = 8 + 14 * depth.getOrDefault(s.spanId(), 0);
            g.setColor(s.isError() ? new Color(0xc0392b) : Color.BLACK);
            g.drawString(clip(g, s.name(), LABEL - indent - 6), indent, y + 14);
            int x = LABEL + (int) ((s.startNanos() - t0) * scale);
            int w = Math.max(2, (int) ((s.endNanos() - s.startNanos()) * scale));
            g.setColor(colours.get(s.service()));
            g.fillRect(x, y + 4, w, ROW - 8);
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format("%.1f ms", (s.endNanos() - s.startNanos()) / 1e6), x + w + 4, y + 14);
            y += ROW;
        }
        g.dispose();
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(image, "png", png.toFile());
    }

    private static String clip(Graphics2D g, String text, int width) {
        String t = text;
        while (t.length() > 4 && g.getFontMetrics().stringWidth(t) > width) {
            t = t.substring(0, t.length() - 2);
        }
        return t.equals(text) ? t : t + "…";
    }

    private static List<ReceivedSpan> treeOrder(List<ReceivedSpan> spans) {
        Map<String, List<ReceivedSpan>> children = new HashMap<>();
        Map<String, ReceivedSpan> byId = new HashMap<>();
        spans.forEach(s -> byId.put(s.spanId(), s));
        List<ReceivedSpan> roots = new ArrayList<>();
        for (ReceivedSpan s : spans) {
            if (byId.containsKey(s.parentSpanId())) {
                children.computeIfAbsent(s.parentSpanId(), k -> new ArrayList<>())
                        .add(s);
            } else {
                roots.add(s);
            }
        }
        List<ReceivedSpan> out = new ArrayList<>();
        roots.sort(Comparator.comparingLong(ReceivedSpan::startNanos));
        for (ReceivedSpan root : roots) {
            visit(root, children, out);
        }
        return out;
    }

    private static void visit(ReceivedSpan s, Map<String, List<ReceivedSpan>> children, List<ReceivedSpan> out) {
        out.add(s);
        List<ReceivedSpan> mine = new ArrayList<>(children.getOrDefault(s.spanId(), List.of()));
        mine.sort(Comparator.comparingLong(ReceivedSpan::startNanos));
        for (ReceivedSpan c : mine) {
            visit(c, children, out);
        }
    }

    private static Map<String, Integer> depths(List<ReceivedSpan> spans) {
        Map<String, ReceivedSpan> byId = new HashMap<>();
        spans.forEach(s -> byId.put(s.spanId(), s));
        Map<String, Integer> depth = new HashMap<>();
        for (ReceivedSpan s : spans) {
            int d = 0;
            ReceivedSpan p = byId.get(s.parentSpanId());
            while (p != null && d < 64) {
                d++;
                p = byId.get(p.parentSpanId());
            }
            depth.put(s.spanId(), d);
        }
        return depth;
    }
}
