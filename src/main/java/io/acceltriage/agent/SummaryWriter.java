package io.acceltriage.agent;

import io.quarkus.qute.Template;

/**
 * Writes the short summary a person reads first, from the Qute template {@code summary.txt}: what
 * happened, the family and confidence, the evidence it rests on (by id), what runs and what a person
 * must do. The model path replaces it only with a summary that passes the citation check.
 */
public final class SummaryWriter {

    private final Template template;

    public SummaryWriter(Template template) {
        this.template = template;
    }

    public String write(Assessment a) {
        return template.data("a", a)
                .data("cited", a.evidence().items().stream().filter(e -> a.diagnosis().evidenceIds().contains(e.id())).limit(6).toList())
                .render().strip();
    }
}
