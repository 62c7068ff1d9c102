package io.acceltriage.web.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

class ChartsTest {

    @Test
    void aScaleMapsTheDataRangeOntoThePixelRangeAndYGrowsUpwards() {
        Charts.Scale x = new Charts.Scale(100, 200, 56, 624);
        assertEquals(56, x.at(100), 1e-9);
        assertEquals(624, x.at(200), 1e-9);
        assertEquals(340, x.at(150), 1e-9);
        Charts.Scale y = new Charts.Scale(0, 10, 200, 16);
        assertEquals(200, y.at(0), 1e-9);
        assertEquals(16, y.at(10), 1e-9);
        assertTrue(y.at(7) < y.at(3), "a larger value is drawn higher");
    }

    @Test
    void theYAxisEndsOnARoundNumberAtOrAboveTheHighestValue() {
        assertEquals(1, Charts.niceCeiling(0));
        assertEquals(1, Charts.niceCeiling(0.9));
        assertEquals(2, Charts.niceCeiling(1.2));
        assertEquals(250, Charts.niceCeiling(201));
        assertEquals(500, Charts.niceCeiling(260));
        assertEquals(1000, Charts.niceCeiling(501));
        assertEquals(100, Charts.niceCeiling(100));
        assertEquals(List.of(0.0, 62.5, 125.0, 187.5, 250.0), Charts.ticks(250));
    }

    @Test
    void aLineChartPlacesEveryPointOnItsScaleAndTitlesIt() throws Exception {
        String svg = Charts.line("Time to mitigate", List.of(new Charts.Series("device",
                List.of(new Charts.Point(1000, 30), new Charts.Point(0, 0), new Charts.Point(2000, 100)))), v -> "t" + (long) v, "s");
        parses(svg);
        assertTrue(svg.startsWith("<svg") && svg.contains("role=\"img\"") && svg.contains("<title>Time to mitigate</title>"), svg);
        List<double[]> circles = circles(svg);
        assertEquals(3, circles.size());
        // Sorted by x; x 0..2000 → 56..624; y 0..100 → 200..16.
        assertEquals(56, circles.get(0)[0], 0.05);
        assertEquals(200, circles.get(0)[1], 0.05);
        assertEquals(340, circles.get(1)[0], 0.05);
        assertEquals(200 - 0.3 * 184, circles.get(1)[1], 0.05);
        assertEquals(624, circles.get(2)[0], 0.05);
        assertEquals(16, circles.get(2)[1], 0.05);
        assertTrue(svg.contains("<title>device · t1000: 30 s</title>"), "each point says its value: " + svg);
        assertTrue(svg.contains(">t0<") && svg.contains(">t2000<") && svg.contains(">100 s<"), "axis labels: " + svg);
        assertTrue(svg.contains("points=\"56.0,200.0 340.0,144.8 624.0,16.0\""), svg);
    }

    @Test
    void barsAreAsLongAsTheirValueAgainstARoundMaximum() throws Exception {
        String svg = Charts.bars("GPU-hours lost per pool", List.of(new Charts.Bar("h100", 40), new Charts.Bar("a100", 20)), "GPU-h");
        parses(svg);
        Matcher m = Pattern.compile("<rect class=\"bar\" x=\"180\" y=\"[0-9.]+\" width=\"([0-9.]+)\"").matcher(svg);
        List<Double> widths = new ArrayList<>();
        while (m.find()) widths.add(Double.parseDouble(m.group(1)));
        assertEquals(2, widths.size(), svg);
        // 0..50 over 180..564 px: 40 → 307.2 px, 20 → 153.6 px.
        assertEquals(307.2, widths.get(0), 0.05);
        assertEquals(153.6, widths.get(1), 0.05);
        assertTrue(svg.contains("<title>h100: 40 GPU-h</title>"), svg);
    }

    @Test
    void namesThatLookLikeMarkupAreEscapedEverywhere() throws Exception {
        String evil = "pool\"><script>alert(1)</script>&'";
        String bars = Charts.bars(evil, List.of(new Charts.Bar(evil, 1)), "<u>");
        String line = Charts.line(evil, List.of(new Charts.Series(evil, List.of(new Charts.Point(0, 1), new Charts.Point(1, 2)))),
                v -> evil, "<u>");
        String spark = Charts.sparkline(evil, List.of(1.0, 2.0), 0);
        for (String svg : List.of(bars, line, spark)) {
            assertFalse(svg.contains("<script>") || svg.contains("pool\""), svg);
            assertTrue(svg.contains("pool&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;"), svg);
            parses(svg);
        }
    }

    @Test
    void nothingToDrawSaysSoInsteadOfAnEmptyFrame() throws Exception {
        String line = Charts.line("empty", List.of(new Charts.Series("a", List.of(new Charts.Point(0, Double.NaN)))), v -> "", "");
        assertTrue(line.contains("no data in this window") && !line.contains("<circle"), line);
        String bars = Charts.bars("empty", List.of(), "");
        assertTrue(bars.contains("no data in this window"), bars);
        String spark = Charts.sparkline("gaps", Arrays.asList(1.0, null), -1);
        assertTrue(spark.contains("no data") && !spark.contains("<polyline"), spark);
        parses(line);
        parses(bars);
        parses(spark);
    }

    @Test
    void aStripColoursEachOutcomeOldestFirstKeepsTheNewestThatFitAndEscapesItsNames() throws Exception {
        List<Charts.Mark> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) many.add(new Charts.Mark(i % 3 != 0, "run " + i));
        String svg = Charts.strips("runs", List.of(new Charts.Strip("<drill>", List.of(new Charts.Mark(true, "a & b"),
                new Charts.Mark(false, "c"))), new Charts.Strip("many", many), new Charts.Strip("none", List.of())), "passed", "failed");
        parses(svg);
        assertTrue(svg.contains("data-strip=\"&lt;drill&gt;\"") && !svg.contains("<drill>"), svg);
        assertTrue(svg.contains("<rect class=\"mark good\" x=\"220.0\"") && svg.contains("fill=\"" + Charts.GOOD + "\"><title>a &amp; b</title>"), svg);
        assertTrue(svg.contains("fill=\"" + Charts.BAD + "\"><title>c</title>"), svg);
        assertTrue(svg.contains(">1/2</text>"), "good of all at the row's end: " + svg);
        assertTrue(svg.contains("<title>run 39</title>") && !svg.contains("<title>run 0</title>"), "the newest that fit, not the oldest");
        assertFalse(svg.contains("data-strip=\"none\""), "a row with no outcome is left out");
        assertTrue(svg.contains(">passed</text>") && svg.contains(">failed</text>"), "the legend names both");
        assertTrue(Charts.strips("runs", List.of(), "passed", "failed").contains("no data in this window"));
    }

    @Test
    void aSparklineSpansItsBoxAndMarksTheFault() throws Exception {
        String svg = Charts.sparkline("GPU 0 temperature", List.of(60.0, 60.0, 90.0), 1);
        parses(svg);
        assertTrue(svg.contains("<title>GPU 0 temperature (60 to 90)</title>"), svg);
        // x 0..2 → 3..117; y 60..90 → 25..3.
        assertTrue(svg.contains("points=\"3.0,25.0 60.0,25.0 117.0,3.0\""), svg);
        assertTrue(svg.contains("<line class=\"mark\" x1=\"60.0\""), svg);
        String flat = Charts.sparkline("flat", List.of(5.0, 5.0), -1);
        assertTrue(flat.contains("points=\"3.0,14.0 117.0,14.0\""), "a level series sits in the middle: " + flat);
    }

    @Test
    void coordinatesUseAPointWhateverTheDefaultLocale() {
        java.util.Locale before = java.util.Locale.getDefault();
        try {
            java.util.Locale.setDefault(java.util.Locale.GERMANY);
            assertTrue(Charts.sparkline("x", List.of(0.5, 1.5), -1).contains("points=\"3.0,25.0 117.0,3.0\""));
            assertEquals("2.5 s", Charts.value(2.5, "s"));
            assertEquals("0.0125", Charts.value(0.0125, ""));
            assertEquals("12.3", Charts.value(12.34, ""));
        } finally {
            java.util.Locale.setDefault(before);
        }
    }

    private static List<double[]> circles(String svg) {
        Matcher m = Pattern.compile("<circle cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"").matcher(svg);
        List<double[]> out = new ArrayList<>();
        while (m.find()) out.add(new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))});
        return out;
    }

    /** Well-formed XML, or the test fails with the parser's reason. */
    private static void parses(String svg) throws Exception {
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new java.io.ByteArrayInputStream(svg.getBytes(
                java.nio.charset.StandardCharsets.UTF_8)));
    }
}
