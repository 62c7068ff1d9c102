package io.acceltriage.chat;

import io.acceltriage.config.KubernetesNames;
import io.acceltriage.incident.Subject;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one grammar of chat commands, for Slack and Teams alike (see {@code templates/chat/help.txt}).
 * Names are checked against Kubernetes' rules here, so nothing malformed travels further.
 */
public final class CommandParser {

    private static final Pattern KIND = Pattern.compile("[A-Za-z][A-Za-z0-9]{0,62}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,39}");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]{0,127}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]{0,127})=(\\S{1,256})");
    private static final Pattern DURATION = Pattern.compile("(?:(\\d{1,3})d)?(?:(\\d{1,4})h)?(?:(\\d{1,5})m)?");
    static final Duration MAX_SILENCE = Duration.ofDays(7);
    static final int MAX_QUESTION = 2_000;
    private static final Set<String> COMMANDS = Set.of("help", "?", "investigate", "status", "approve", "reject", "silence", "reset");
    private static final Set<String> QUESTION_WORDS = Set.of("what", "what's", "whats", "why", "how", "when", "which", "who",
            "where", "is", "was", "were", "are", "did", "does", "do", "has", "have", "can", "could", "should", "tell", "explain");

    private CommandParser() {}

    public static Command parse(String text) {
        List<String> w = Arrays.stream((text == null ? "" : text).strip().split("\\s+")).filter(s -> !s.isEmpty()).toList();
        if (w.isEmpty()) {
            return new Command.Help();
        }
        String verb = w.get(0).toLowerCase(Locale.ROOT);
        // `why ACTION_ID` stays the audit answer; a verb of ours with a "?" stays that command, so a question never acts.
        if (w.size() >= 2 && isQuestion(verb, text.strip()) && !(w.size() == 2 && verb.equals("why") && ID.matcher(w.get(1)).matches())) {
            return text.length() > MAX_QUESTION ? new Command.Unknown("ask in at most " + MAX_QUESTION + " characters")
                    : new Command.Question(text.strip());
        }
        return switch (verb) {
            case "help", "?" -> new Command.Help();
            case "investigate" -> investigate(w);
            case "status" -> status(w);
            case "why" -> w.size() == 2 && ID.matcher(w.get(1)).matches() ? new Command.Why(w.get(1))
                    : new Command.Unknown("say `why ACTION_ID`, for example `why act-1a2b3c`");
            case "approve" -> w.size() == 2 && ID.matcher(w.get(1)).matches() ? new Command.Approve(w.get(1))
                    : new Command.Unknown("say `approve ACTION_ID`");
            case "reject" -> w.size() >= 2 && ID.matcher(w.get(1)).matches()
                    ? new Command.Reject(w.get(1), w.size() > 2 ? String.join(" ", w.subList(2, w.size())) : null)
                    : new Command.Unknown("say `reject ACTION_ID [reason]`");
            case "silence" -> silence(w);
            case "reset" -> w.size() == 2 && w.get(1).equalsIgnoreCase("breaker") ? new Command.ResetBreaker()
                    : new Command.Unknown("say `reset breaker`");
            default -> new Command.Unknown("I do not know `" + abbreviate(w.get(0)) + "`");
        };
    }

    /** Not a command but a question: it ends in "?" or opens with a question word, and its verb is none of ours. */
    private static boolean isQuestion(String verb, String text) {
        return QUESTION_WORDS.contains(verb) || (text.endsWith("?") && !COMMANDS.contains(verb));
    }

    private static Command investigate(List<String> w) {
        String usage = "say `investigate pod NAMESPACE/NAME`, `investigate node NAME` or `investigate workload NAMESPACE/KIND/NAME`";
        if (w.size() != 3) {
            return new Command.Unknown(usage);
        }
        String[] parts = w.get(2).split("/", -1);
        switch (w.get(1).toLowerCase(Locale.ROOT)) {
            case "node":
                return KubernetesNames.isName(w.get(2)) ? new Command.Investigate(Subject.node(w.get(2)))
                        : new Command.Unknown("`" + abbreviate(w.get(2)) + "` is not a node name");
            case "pod":
                return parts.length == 2 && KubernetesNames.isName(parts[0]) && KubernetesNames.isName(parts[1])
                        ? new Command.Investigate(Subject.pod(parts[0], parts[1]))
                        : new Command.Unknown("a pod is NAMESPACE/NAME, for example `serve/vllm-llama-0`");
            case "workload":
                return parts.length == 3 && KubernetesNames.isName(parts[0]) && KIND.matcher(parts[1]).matches()
                        && KubernetesNames.isName(parts[2])
                        // The correlator names workloads "kind/name" in lower case (deployment/vllm-llama).
                        ? new Command.Investigate(new Subject(Subject.Kind.WORKLOAD, parts[0],
                                parts[1].toLowerCase(Locale.ROOT) + "/" + parts[2]))
                        : new Command.Unknown("a workload is NAMESPACE/KIND/NAME, for example `serve/Deployment/vllm-llama`");
            default:
                return new Command.Unknown(usage);
        }
    }

    private static Command status(List<String> w) {
        if (w.size() == 3 && w.get(1).equalsIgnoreCase("incident") && ID.matcher(w.get(2)).matches()) {
            return new Command.IncidentStatus(w.get(2));
        }
        if (w.size() == 3 && w.get(1).equalsIgnoreCase("node") && KubernetesNames.isName(w.get(2))) {
            return new Command.NodeStatus(w.get(2));
        }
        return new Command.Unknown("say `status incident ID` or `status node NAME`");
    }

    private static Command silence(List<String> w) {
        String usage = "say `silence ALERTNAME [label=value …] for 2h [comment]`";
        if (w.size() < 4 || !LABEL.matcher(w.get(1)).matches()) {
            return new Command.Unknown(usage);
        }
        Map<String, String> matchers = new LinkedHashMap<>();
        matchers.put("alertname", w.get(1));
        int i = 2;
        for (; i < w.size() && !w.get(i).equalsIgnoreCase("for"); i++) {
            Matcher m = MATCHER.matcher(w.get(i));
            if (!m.matches()) {
                return new Command.Unknown("`" + abbreviate(w.get(i)) + "` is not a label=value matcher; " + usage);
            }
            matchers.put(m.group(1), m.group(2));
        }
        if (i + 1 >= w.size()) {
            return new Command.Unknown("how long? " + usage);
        }
        Duration d = duration(w.get(i + 1).toLowerCase(Locale.ROOT));
        if (d == null) {
            return new Command.Unknown("`" + abbreviate(w.get(i + 1)) + "` is not a duration like 30m, 2h or 1d");
        }
        if (d.compareTo(MAX_SILENCE) > 0) {
            return new Command.Unknown("a silence from chat lasts at most 7d; use Alertmanager for longer ones");
        }
        String comment = i + 2 < w.size() ? String.join(" ", w.subList(i + 2, w.size())) : null;
        return new Command.Silence(matchers, d, comment);
    }

    static Duration duration(String s) {
        Matcher m = DURATION.matcher(s);
        if (s.isEmpty() || !m.matches()) {
            return null;
        }
        Duration d = Duration.ZERO;
        if (m.group(1) != null) d = d.plusDays(Long.parseLong(m.group(1)));
        if (m.group(2) != null) d = d.plusHours(Long.parseLong(m.group(2)));
        if (m.group(3) != null) d = d.plusMinutes(Long.parseLong(m.group(3)));
        return d.isZero() ? null : d;
    }

    private static String abbreviate(String s) {
        String clean = s.replace("`", "");
        return clean.length() > 40 ? clean.substring(0, 40) + "…" : clean;
    }
}
