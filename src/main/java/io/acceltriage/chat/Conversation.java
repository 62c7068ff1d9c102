package io.acceltriage.chat;

import io.acceltriage.agent.Assessment;
import io.acceltriage.triage.Responder;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Answers what people say in Slack or Teams: one parser, one dispatch, so both channels behave the
 * same. Each command family has its own class: {@link ChatDecisions} (approve, reject, reset the
 * breaker: approvers only), {@link StatusAnswers} (status, why), {@link Silences}, {@link Questions} (free-form,
 * answered by the model when there is one); investigations go to the responder.
 */
@ApplicationScoped
public class Conversation {

    private static final Logger LOG = Logger.getLogger(Conversation.class);

    private final Instance<Responder> responder;
    private final ChatDecisions decisions;
    private final StatusAnswers status;
    private final Silences silences;
    private final Questions questions;
    private final Template help;
    private final Template investigation;

    Conversation(Instance<Responder> responder, ChatDecisions decisions, StatusAnswers status, Silences silences,
            Questions questions, @Location("chat/help.txt") Template help, @Location("chat/investigation.txt") Template investigation) {
        this.responder = responder;
        this.decisions = decisions;
        this.status = status;
        this.silences = silences;
        this.questions = questions;
        this.help = help;
        this.investigation = investigation;
    }

    /** The answer to {@code text} from {@code user}. May take seconds (an investigation): call it off the request thread. */
    public String answer(ChatUser user, String text) {
        Command command = CommandParser.parse(text);
        try {
            return respond(user, command);
        } catch (RuntimeException e) {
            LOG.errorf(e, "chat command from %s failed: %s", user.actor(), command);
            return "Sorry, that failed on my side (" + e.getClass().getSimpleName() + "); the service log has the details.";
        }
    }

    private String respond(ChatUser user, Command command) {
        if (command instanceof Command.Help) return help.render().strip();
        if (command instanceof Command.Investigate i) return investigate(i);
        if (command instanceof Command.IncidentStatus s) return status.incidentStatus(s.incidentId());
        if (command instanceof Command.NodeStatus s) return status.nodeStatus(s.node());
        if (command instanceof Command.Why w) return status.why(w.actionId());
        if (command instanceof Command.Approve a) return decisions.decide(user, a.actionId(), true, null);
        if (command instanceof Command.Reject r) return decisions.decide(user, r.actionId(), false, r.reason());
        if (command instanceof Command.Silence s) return silences.answer(user, s);
        if (command instanceof Command.ResetBreaker) return decisions.resetBreaker(user);
        if (command instanceof Command.Question q) return questions.answer(q.text());
        return ((Command.Unknown) command).problem() + ". Say `help` for what I understand.";
    }

    private String investigate(Command.Investigate i) {
        if (!responder.isResolvable()) {
            return "investigations are not available in this build";
        }
        Assessment a = responder.get().assess(i.subject(), List.of());
        return investigation.data("a", a).render().strip();
    }
}
