package io.acceltriage.agent.llm;

import io.acceltriage.evidence.EvidenceBundle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Guardrail: evidence or it did not happen. A model's text must cite at least one evidence id, and
 * every id it cites — in its list or in the text as [E7] — must exist in the bundle. A text that fails
 * is rejected and the template summary is used instead.
 */
final class CitationCheck {

    private static final Pattern ID_IN_TEXT = Pattern.compile("\\b(E\\d+)\\b");

    private CitationCheck() {}

    /** Empty when the citations hold, else why not. */
    static Optional<String> problem(String text, List<String> cited, EvidenceBundle bundle) {
        Set<String> all = new LinkedHashSet<>(cited == null ? List.of() : cited);
        Matcher m = ID_IN_TEXT.matcher(text == null ? "" : text);
        while (m.find()) all.add(m.group(1));
        if (text == null || text.isBlank()) return Optional.of("the model wrote no text");
        if (all.isEmpty()) return Optional.of("the model cited no evidence");
        List<String> invented = new ArrayList<>();
        for (String id : all) {
            if (bundle.byId(id).isEmpty()) invented.add(id);
        }
        return invented.isEmpty() ? Optional.empty()
                : Optional.of("the model cited evidence that does not exist: " + String.join(", ", invented));
    }
}
