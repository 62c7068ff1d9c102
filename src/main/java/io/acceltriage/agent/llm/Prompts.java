package io.acceltriage.agent.llm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prompts of {@code prompts/}, one file per job, with partials ({@code {{> name}}} includes
 * {@code prompts/partials/name.txt}) so the shared safety rules are written once and appear in every
 * prompt. Read at start: a missing file stops the service instead of sending an empty prompt.
 */
final class Prompts {

    private static final Pattern INCLUDE = Pattern.compile("\\{\\{>\\s*([a-z][a-z0-9-]*)\\s*}}");

    private Prompts() {}

    static String load(String name) {
        String text = read("prompts/" + name + ".txt");
        Matcher m = INCLUDE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(read("prompts/partials/" + m.group(1) + ".txt").strip()));
        }
        m.appendTail(out);
        return out.toString().strip();
    }

    private static String read(String resource) {
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the build; restore it from version control");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource + ": " + e.getMessage(), e);
        }
    }
}
