package io.acceltriage.sandbox;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A strict reader of the Prometheus text format (0.0.4) that fails on any line it cannot accept. */
final class ExpositionParser {

    private static final Pattern HELP = Pattern.compile("# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+");
    private static final Pattern TYPE = Pattern.compile("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)");
    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\.)*\""
                    + "(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\.)*\")*)} (-?[0-9.]+(?:e[+-]?[0-9]+)?)");

    private ExpositionParser() {
    }

    /** Metric name to type; throws AssertionError naming the first invalid line. */
    static Map<String, String> parse(String text) {
        Map<String, String> types = new HashMap<>();
        Set<String> seen = new HashSet<>();
        if (!text.endsWith("\n")) {
            throw new AssertionError("exposition must end with a newline");
        }
        for (String line : text.split("\n")) {
            Matcher m;
            if ((m = HELP.matcher(line)).matches()) {
                continue;
            }
            if ((m = TYPE.matcher(line)).matches()) {
                if (types.put(m.group(1), m.group(2)) != null) {
                    throw new AssertionError("second TYPE line for " + m.group(1));
                }
                continue;
            }
            if ((m = SAMPLE.matcher(line)).matches()) {
                if (!types.containsKey(m.group(1))) {
                    throw new AssertionError("sample before its TYPE: " + line);
                }
                if (!seen.add(m.group(1) + "{" + m.group(2) + "}")) {
                    throw new AssertionError("duplicate series: " + line);
                }
                Double.parseDouble(m.group(3));
                continue;
            }
            throw new AssertionError("not valid exposition: " + line);
        }
        return types;
    }
}
