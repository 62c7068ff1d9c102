package io.acceltriage.web.charts;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * Small charts as SVG strings, drawn on the server so a page needs no script, no CDN and works
 * offline: a line chart (series over a numeric or time axis), a horizontal bar chart, a strip of outcomes per row and a sparkline.
 * Every chart is an {@code <svg role="img">} whose {@code <title>} says what it shows, and every point
 * or bar has its own {@code <title>} with its value (a tooltip, and what a screen reader reads). All
 * text is escaped: labels are node, pool and family names, which the cluster's users choose.
 */
public final class Charts {

    private Charts() {}

    /** One point; on a time axis {@code x} is seconds since the epoch. */
    public record Point(double x, double y) {}

    public record Series(String name, List<Point> points) {}

    public record Bar(String label, double value) {}

    /** One outcome in a strip: good or not (its colour) and what its tooltip says (when, what). */
    public record Mark(boolean good, String title) {}

    /** One row of outcomes, oldest first. */
    public record Strip(String label, List<Mark> marks) {}

    static final String GOOD = "#56d364";
    static final String BAD = "#ff7b72";

    /** Colours that read on the pages' dark background, in series order. */
    static final List<String> PALETTE = List.of("#58a6ff", "#f0b34a", "#ff7b72", "#56d364", "#d2a8ff", "#79c0ff", "#ffa657");

    static final int WIDTH = 640;
    static final int HEIGHT = 240;
    static final int LEFT = 56;
    static final int RIGHT = 16;
    static final int TOP = 16;
    static final int BOTTOM = 40;

    /**
     * Lines of every series over a shared x axis, y from 0 to a round number above the highest value.
     * {@code xLabel} formats the x ticks (a time, a count); {@code unit} follows every y value.
     */
    public static String line(String title, List<Series> series, DoubleFunction<String> xLabel, String unit) {
        List<Series> drawn = series.stream().map(s -> new Series(s.name(), s.points().stream()
                .filter(p -> Double.isFinite(p.x()) && Double.isFinite(p.y())).toList())).filter(s -> !s.points().isEmpty()).toList();
        StringBuilder svg = open(title, WIDTH, HEIGHT);
        if (drawn.isEmpty()) return empty(svg, WIDTH, HEIGHT);
        double xMin = drawn.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::x).min().orElse(0);
        double xMax = drawn.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::x).max().orElse(1);
        double yMax = niceCeiling(drawn.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::y).max().orElse(0));
        Scale x = new Scale(xMin, xMax == xMin ? xMin + 1 : xMax, LEFT, WIDTH - RIGHT);
        Scale y = new Scale(0, yMax, HEIGHT - BOTTOM, TOP);
        axes(svg, x, y, xLabel, unit, xMax == xMin);
        for (int i = 0; i < drawn.size(); i++) {
            Series s = drawn.get(i);
            String colour = PALETTE.get(i % PALETTE.size());
            svg.append("<g class=\"series\" data-series=\"").append(escape(s.name())).append("\"><title>").append(escape(s.name()))
                    .append("</title>");
            List<Point> pts = new ArrayList<>(s.points());
            pts.sort(java.util.Comparator.comparingDouble(Point::x));
            if (pts.size() > 1) {
                svg.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"2\" points=\"");
                for (Point p : pts) svg.append(num(x.at(p.x()))).append(',').append(num(y.at(p.y()))).append(' ');
                svg.setLength(svg.length() - 1);
                svg.append("\"/>");
            }
            for (Point p : pts) {
                svg.append("<circle cx=\"").append(num(x.at(p.x()))).append("\" cy=\"").append(num(y.at(p.y())))
                        .append("\" r=\"3\" fill=\"").append(colour).append("\"><title>").append(escape(s.name())).append(" · ")
                        .append(escape(xLabel.apply(p.x()))).append(": ").append(escape(value(p.y(), unit))).append("</title></circle>");
            }
            svg.append("</g>");
        }
        legend(svg, drawn.stream().map(Series::name).toList());
        return svg.append("</svg>").toString();
    }

    /** One horizontal bar per label, longest scale to a round number above the largest value. */
    public static String bars(String title, List<Bar> bars, String unit) {
        int rowHeight = 24;
        int labelWidth = 180;
        List<Bar> drawn = bars.stream().filter(b -> Double.isFinite(b.value()) && b.value() >= 0).toList();
        int height = TOP + Math.max(1, drawn.size()) * rowHeight + 28;
        StringBuilder svg = open(title, WIDTH, height);
        if (drawn.isEmpty()) return empty(svg, WIDTH, height);
        double max = niceCeiling(drawn.stream().mapToDouble(Bar::value).max().orElse(0));
        Scale x = new Scale(0, max, labelWidth, WIDTH - RIGHT - 60);
        int axisY = TOP + drawn.size() * rowHeight;
        for (double t : ticks(max)) {
            svg.append("<line class=\"grid\" x1=\"").append(num(x.at(t))).append("\" y1=\"").append(TOP).append("\" x2=\"")
                    .append(num(x.at(t))).append("\" y2=\"").append(axisY).append("\" stroke=\"#2a323c\"/>");
            svg.append(text(x.at(t), axisY + 16, "middle", value(t, "")));
        }
        for (int i = 0; i < drawn.size(); i++) {
            Bar b = drawn.get(i);
            double top = TOP + i * rowHeight + 4;
            svg.append(text(labelWidth - 8, top + 12, "end", clip(b.label(), 28)));
            svg.append("<rect class=\"bar\" x=\"").append(labelWidth).append("\" y=\"").append(num(top)).append("\" width=\"")
                    .append(num(x.at(b.value()) - labelWidth)).append("\" height=\"").append(rowHeight - 8).append("\" fill=\"")
                    .append(PALETTE.get(i % PALETTE.size())).append("\"><title>").append(escape(b.label())).append(": ")
                    .append(escape(value(b.value(), unit))).append("</title></rect>");
            svg.append(text(x.at(b.value()) + 6, top + 12, "start", value(b.value(), unit)));
        }
        return svg.append("</svg>").toString();
    }

    /**
     * One row per label, a square per outcome left to right (oldest first), green when good and red when not,
     * with a good/all count at the row's end and a legend naming the two; every square's {@code <title>} is its mark's title.
     */
    public static String strips(String title, List<Strip> strips, String goodName, String badName) {
        int rowHeight = 24;
        int labelWidth = 220;
        int cell = 16;
        List<Strip> drawn = strips.stream().filter(s -> !s.marks().isEmpty()).toList();
        int height = TOP + Math.max(1, drawn.size()) * rowHeight + 28;
        StringBuilder svg = open(title, WIDTH, height);
        if (drawn.isEmpty()) return empty(svg, WIDTH, height);
        int fits = (WIDTH - RIGHT - 60 - labelWidth) / (cell + 4);
        for (int i = 0; i < drawn.size(); i++) {
            Strip s = drawn.get(i);
            List<Mark> marks = s.marks().subList(Math.max(0, s.marks().size() - fits), s.marks().size());
            double top = TOP + i * rowHeight + 4;
            svg.append("<g class=\"strip\" data-strip=\"").append(escape(s.label())).append("\">");
            svg.append(text(labelWidth - 8, top + 12, "end", clip(s.label(), 32)));
            for (int j = 0; j < marks.size(); j++) {
                Mark m = marks.get(j);
                svg.append("<rect class=\"mark ").append(m.good() ? "good" : "bad").append("\" x=\"").append(num(labelWidth + j * (cell + 4)))
                        .append("\" y=\"").append(num(top)).append("\" width=\"").append(cell).append("\" height=\"").append(cell)
                        .append("\" fill=\"").append(m.good() ? GOOD : BAD).append("\"><title>").append(escape(m.title()))
                        .append("</title></rect>");
            }
            long good = marks.stream().filter(Mark::good).count();
            svg.append(text(labelWidth + marks.size() * (cell + 4) + 4, top + 12, "start", good + "/" + marks.size()));
            svg.append("</g>");
        }
        double at = LEFT;
        for (String[] key : new String[][] {{GOOD, goodName}, {BAD, badName}}) {
            svg.append("<rect x=\"").append(num(at)).append("\" y=\"").append(height - 14).append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(key[0]).append("\"/>");
            svg.append(text(at + 14, height - 5, "start", key[1]));
            at += 24 + key[1].length() * 7;
        }
        return svg.append("</svg>").toString();
    }

    /**
     * A word-sized line of values with no axes, its lowest and highest value in the title; {@code mark}
     * (an index, or -1) draws a vertical rule there, e.g. the moment of the fault.
     */
    public static String sparkline(String title, List<Double> values, int mark) {
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) points.add(new Point(i, values.get(i) == null ? Double.NaN : values.get(i)));
        return sparkline(title, points, mark >= 0 && mark < values.size() ? mark : Double.NaN, 0, Math.max(1, values.size() - 1));
    }

    /**
     * A sparkline over an x axis of its own (e.g. seconds since the epoch): the points placed at their
     * x between {@code fromX} and {@code toX}, so a gap in the series shows as one; {@code markX} (NaN for
     * none) draws a vertical rule there, e.g. the moment of the fault. Any value that is not finite
     * (a NaN reading) makes it "no data" rather than a line that lies.
     */
    public static String sparkline(String title, List<Point> points, double markX, double fromX, double toX) {
        int w = 120;
        int h = 28;
        List<Double> finite = points.stream().map(Point::y).filter(Double::isFinite).toList();
        StringBuilder svg = new StringBuilder("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sparkline\" role=\"img\" width=\"")
                .append(w).append("\" height=\"").append(h).append("\" viewBox=\"0 0 ").append(w).append(' ').append(h).append("\"><title>")
                .append(escape(title));
        if (!finite.isEmpty()) {
            svg.append(" (").append(value(finite.stream().mapToDouble(Double::doubleValue).min().orElse(0), "")).append(" to ")
                    .append(value(finite.stream().mapToDouble(Double::doubleValue).max().orElse(0), "")).append(')');
        }
        svg.append("</title>");
        if (finite.size() != points.size() || finite.isEmpty()) {
            return svg.append("<text x=\"2\" y=\"18\" font-size=\"11\" fill=\"#9aa5b1\">no data</text></svg>").toString();
        }
        double lo = finite.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double hi = finite.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        Scale x = new Scale(fromX, toX > fromX ? toX : fromX + 1, 3, w - 3);
        Scale y = hi == lo ? new Scale(lo - 1, hi + 1, h - 3, 3) : new Scale(lo, hi, h - 3, 3);
        if (Double.isFinite(markX) && markX >= fromX && markX <= toX) {
            svg.append("<line class=\"mark\" x1=\"").append(num(x.at(markX))).append("\" y1=\"0\" x2=\"").append(num(x.at(markX)))
                    .append("\" y2=\"").append(h).append("\" stroke=\"#ff7b72\" stroke-dasharray=\"2,2\"/>");
        }
        svg.append("<polyline fill=\"none\" stroke=\"#58a6ff\" stroke-width=\"1.5\" points=\"");
        for (Point p : points) svg.append(num(x.at(p.x()))).append(',').append(num(y.at(p.y()))).append(' ');
        svg.setLength(svg.length() - 1);
        svg.append("\"/>");
        Point last = points.get(points.size() - 1);
        svg.append("<circle cx=\"").append(num(x.at(last.x()))).append("\" cy=\"").append(num(y.at(last.y())))
                .append("\" r=\"2\" fill=\"#58a6ff\"/>");
        return svg.append("</svg>").toString();
    }

    /** A linear map from a data range onto a pixel range (reversed for y: larger values higher up). */
    record Scale(double from, double to, double pixelFrom, double pixelTo) {
        double at(double v) {
            return pixelFrom + (v - from) / (to - from) * (pixelTo - pixelFrom);
        }
    }

    /** The smallest of 1, 2, 2.5 or 5 × 10ⁿ at or above {@code v}; 1 for nothing to show. */
    static double niceCeiling(double v) {
        if (!(v > 0)) return 1;
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= v * (1 - 1e-9)) return step * magnitude;
        }
        return 10 * magnitude;
    }

    /** Five gridlines, 0 to max. */
    static List<Double> ticks(double max) {
        List<Double> t = new ArrayList<>();
        for (int i = 0; i <= 4; i++) t.add(max * i / 4);
        return t;
    }

    private static void axes(StringBuilder svg, Scale x, Scale y, DoubleFunction<String> xLabel, String unit, boolean onePoint) {
        for (double t : ticks(y.to())) {
            svg.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" y1=\"").append(num(y.at(t))).append("\" x2=\"")
                    .append(WIDTH - RIGHT).append("\" y2=\"").append(num(y.at(t))).append("\" stroke=\"#2a323c\"/>");
            svg.append(text(LEFT - 6, y.at(t) + 4, "end", value(t, unit)));
        }
        svg.append("<line class=\"axis\" x1=\"").append(LEFT).append("\" y1=\"").append(HEIGHT - BOTTOM).append("\" x2=\"")
                .append(WIDTH - RIGHT).append("\" y2=\"").append(HEIGHT - BOTTOM).append("\" stroke=\"#9aa5b1\"/>");
        double[] xs = onePoint ? new double[] {x.from()} : new double[] {x.from(), (x.from() + x.to()) / 2, x.to()};
        String[] anchors = {"start", "middle", "end"};
        for (int i = 0; i < xs.length; i++) {
            svg.append(text(x.at(xs[i]), HEIGHT - BOTTOM + 16, xs.length == 1 ? "start" : anchors[i], xLabel.apply(xs[i])));
        }
    }

    private static void legend(StringBuilder svg, List<String> names) {
        double at = LEFT;
        for (int i = 0; i < names.size(); i++) {
            String n = clip(names.get(i), 24);
            svg.append("<rect x=\"").append(num(at)).append("\" y=\"").append(HEIGHT - 14).append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(PALETTE.get(i % PALETTE.size())).append("\"/>");
            svg.append(text(at + 14, HEIGHT - 5, "start", n));
            at += 24 + n.length() * 7;
        }
    }

    private static StringBuilder open(String title, int w, int h) {
        return new StringBuilder("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" viewBox=\"0 0 ").append(w)
                .append(' ').append(h).append("\" width=\"100%\" style=\"max-width:").append(w).append("px\"><title>")
                .append(escape(title)).append("</title>");
    }

    private static String empty(StringBuilder svg, int w, int h) {
        return svg.append(text(w / 2.0, h / 2.0, "middle", "no data in this window")).append("</svg>").toString();
    }

    private static String text(double x, double y, String anchor, String s) {
        return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\" font-size=\"11\" fill=\"#9aa5b1\">"
                + escape(s) + "</text>";
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** A value as a person reads it: whole numbers without decimals, others to three significant digits (0.0125, 7.5, 12.3). */
    public static String value(double v, String unit) {
        String n = v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
        return unit == null || unit.isEmpty() ? n : n + " " + unit;
    }

    /** Pixel coordinates to a tenth of a pixel, in the C locale (a decimal comma would break the SVG). */
    static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** Text and attribute values for XML. */
    public static String escape(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c < 0x20 && c != '\t' && c != '\n' ? ' ' : c);
            }
        }
        return b.toString();
    }
}
