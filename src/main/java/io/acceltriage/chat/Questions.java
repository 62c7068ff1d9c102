package io.acceltriage.chat;

import io.acceltriage.agent.llm.ChatAnswer;
import io.acceltriage.agent.llm.ChatAnswerer;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Free-form questions: the model answers from the record of the incident the question names (by id,
 * or the latest of a node it names); without a model, or when the model fails, the rules' answer
 * ({@link StatusAnswers}) is given and says why. Nothing here acts.
 */
@ApplicationScoped
class Questions {

    private static final Pattern INCIDENT = Pattern.compile("\\binc-[a-z0-9]{4,40}\\b");
    /** Words that can be node names: a lower-case DNS label with a hyphen or a digit (gpu-h100-03). */
    private static final Pattern NODE = Pattern.compile("\\b[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?\\b");

    /** What a question is about: an incident, a node, both or neither. */
    record About(String incidentId, String node) {}

    private final ChatAnswerer model;
    private final StatusAnswers status;
    private final IncidentStore incidents;

    Questions(ChatAnswerer model, StatusAnswers status, IncidentStore incidents) {
        this.model = model;
        this.status = status;
        this.incidents = incidents;
    }

    String answer(String question) {
        About about = about(question);
        ChatAnswerer.Reply reply = model.answer(question, about.incidentId());
        if (reply.answer() != null) {
            ChatAnswer a = reply.answer();
            List<String> cited = a.evidenceIds() == null ? List.of() : a.evidenceIds();
            return a.text().strip() + "\n_Answered by the model " + reply.model()
                    + (about.incidentId() == null ? "" : " from incident " + about.incidentId() + "'s record")
                    + (cited.isEmpty() ? "" : "; cites " + String.join(", ", cited)) + ". It only answers; nothing was done._";
        }
        return reply.unavailable() + ", so this is the rules' answer:\n" + rules(about);
    }

    private String rules(About about) {
        if (about.incidentId() != null) return status.incidentStatus(about.incidentId());
        if (about.node() != null) return status.nodeStatus(about.node());
        return "I answer `status incident ID`, `status node NAME` and `why ACTION_ID` without a model; name an incident or a node,"
                + " or say `help`.";
    }

    /** The incident named by id, else the latest incident of a node the question names. */
    private About about(String question) {
        String q = question.toLowerCase(Locale.ROOT);
        Matcher id = INCIDENT.matcher(q);
        while (id.find()) {
            Optional<Incident> i = incidents.find(id.group());
            if (i.isPresent()) return new About(i.get().id(), i.get().node());
        }
        Matcher word = NODE.matcher(q);
        while (word.find()) {
            String w = word.group();
            if (!w.contains("-") || !w.matches(".*\\d.*")) continue;
            List<Incident> latest = incidents.list(new IncidentFilter(null, null, w, null, null, null, 1));
            if (!latest.isEmpty()) return new About(latest.get(0).id(), w);
        }
        return new About(null, null);
    }
}
