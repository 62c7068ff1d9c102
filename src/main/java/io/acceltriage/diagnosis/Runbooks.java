package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The runbooks of {@code knowledge/runbooks/} and of the operator's folder ({@code acceltriage.runbooks.dir},
 * whose files add runbooks or replace the bundled one of the same name), and the choice of one for an
 * incident from its diagnosis: the runbook whose {@code match} fits the diagnosis most closely — its
 * cause pattern found in the diagnosis's cause before one found in a lesser finding, any pattern before
 * a family alone, the operator's before a bundled one. Every family has a runbook without a pattern,
 * so every diagnosis gets one.
 */
public final class Runbooks {

    static final String BUNDLED = "knowledge/runbooks/";
    private static final Pattern ID = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    /** A runbook file. {@code id} is its file name without {@code .yaml}. */
    public record Runbook(String id, String title, Match match, String what, String responder, List<String> next, List<Link> links) {

        /** What a person reads in chat and on the page: the title, what to do next and the vendor's guides. */
        public String text() {
            StringBuilder s = new StringBuilder("Runbook " + id + ": " + title);
            for (String n : next) s.append("\n- ").append(n);
            for (Link l : links) s.append("\n  ").append(l.title()).append(": ").append(l.url());
            return s.toString();
        }
    }

    /** {@code family}: the diagnosis's family (absent: any); {@code cause}: a regular expression found in a cause. */
    public record Match(String family, String cause) {}

    public record Link(String title, String url) {}

    /** A reason of a diagnosis as the runbook choice reads it: its family, its cause and how much it weighs. */
    public record Clue(String family, String cause, double weight) {}

    record File(String apiVersion, String kind, String title, Match match, String what, String responder, List<String> next,
            List<Link> links) {}

    record Index(List<String> runbooks) {}

    private record Compiled(Runbook runbook, Pattern cause) {}

    private final List<Compiled> runbooks;

    Runbooks(List<Runbook> runbooks) {
        this.runbooks = runbooks.stream().map(r -> new Compiled(r, r.match() == null || r.match().cause() == null ? null
                : Pattern.compile(r.match().cause()))).toList();
    }

    /** The bundled runbooks, then the operator's folder (when it exists); an invalid file refuses the start. */
    public static Runbooks load(String dir) {
        Map<String, Runbook> byId = new TreeMap<>();
        for (String name : DataFiles.resource(BUNDLED + "index.yaml", Index.class).runbooks()) {
            String path = BUNDLED + name + ".yaml";
            try (var in = Runbooks.class.getClassLoader().getResourceAsStream(path)) {
                if (in == null) throw new DataFiles.InvalidDataFile(BUNDLED + "index.yaml: lists " + name + ", but " + path + " is missing");
                byId.put(name, parse(path, in.readAllBytes()));
            } catch (IOException e) {
                throw new DataFiles.InvalidDataFile(path + ": cannot read: " + e.getMessage());
            }
        }
        Map<String, Runbook> operators = new TreeMap<>();
        Path folder = dir == null || dir.isBlank() ? null : Path.of(dir);
        if (folder != null && Files.isDirectory(folder)) {
            List<Path> files = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(folder, "*.yaml")) {
                ds.forEach(files::add);
                files.sort(null);
                for (Path f : files) {
                    Runbook r = parse(f.toString(), Files.readAllBytes(f));
                    operators.put(r.id(), r);
                    byId.remove(r.id());
                }
            } catch (IOException e) {
                throw new DataFiles.InvalidDataFile(dir + ": cannot read the runbooks folder: " + e.getMessage());
            }
        }
        // The operator's first: on an equal match their runbook wins over a bundled one.
        List<Runbook> all = new ArrayList<>(operators.values());
        all.addAll(byId.values());
        return new Runbooks(all);
    }

    static Runbook parse(String path, byte[] content) {
        String text = new String(content, java.nio.charset.StandardCharsets.UTF_8);
        File f;
        try {
            f = DataFiles.parse(path, content, File.class);
        } catch (DataFiles.InvalidDataFile e) {
            // The YAML parser names the token after an unknown key, often the next line: point at the key.
            java.util.regex.Matcher m = Pattern.compile("^.*?:\\d+: unknown key '([^']+)'(.*)$", Pattern.DOTALL).matcher(e.getMessage());
            if (!m.matches()) throw e;
            require(path, text, false, m.group(1), "unknown key '" + m.group(1) + "'" + m.group(2));
            throw e;
        }
        String name = Path.of(path).getFileName().toString().replaceFirst("\\.yaml$", "");
        require(path, text, ID.matcher(name).matches(), null, "the file name is the runbook's id: lower-case letters, digits and '-'");
        require(path, text, "acceltriage.io/v1".equals(f.apiVersion()), "apiVersion", "apiVersion must be acceltriage.io/v1, got '"
                + f.apiVersion() + "'");
        require(path, text, "Runbook".equals(f.kind()), "kind", "kind must be Runbook, got '" + f.kind() + "'");
        require(path, text, f.title() != null && !f.title().isBlank(), "title", "title is required");
        require(path, text, f.what() != null && !f.what().isBlank(), "what", "what is required: what this failure is");
        require(path, text, f.responder() != null && !f.responder().isBlank(), "responder",
                "responder is required: what acceltriage does about it");
        require(path, text, f.next() != null && !f.next().isEmpty() && f.next().stream().noneMatch(n -> n == null || n.isBlank()),
                "next", "next needs at least one step a person takes, none empty");
        require(path, text, f.links() != null && !f.links().isEmpty(), "links", "links needs at least one vendor guide");
        for (Link l : f.links()) {
            require(path, text, l != null && l.title() != null && !l.title().isBlank() && l.url() != null && l.url().startsWith("https://"),
                    "links", "every link needs a title and an https:// url, got " + l);
        }
        if (f.match() != null && f.match().family() != null) {
            try {
                Family.parse(f.match().family());
            } catch (IllegalArgumentException e) {
                require(path, text, false, "family", "match.family: " + e.getMessage());
            }
        }
        if (f.match() != null && f.match().cause() != null) {
            try {
                Pattern.compile(f.match().cause());
            } catch (PatternSyntaxException e) {
                require(path, text, false, "cause", "match.cause is not a regular expression: " + e.getDescription());
            }
        }
        return new Runbook(name, f.title(), f.match(), f.what(), f.responder(), List.copyOf(f.next()), List.copyOf(f.links()));
    }

    private static void require(String path, String text, boolean ok, String key, String reason) {
        if (ok) return;
        int line = 1;
        if (key != null) {
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].matches("(^|.*[\\s{,])" + key + "\\s*:.*")) {
                    line = i + 1;
                    break;
                }
            }
        }
        throw new DataFiles.InvalidDataFile(path + ":" + line + ": " + reason);
    }

    public List<Runbook> all() {
        return runbooks.stream().map(Compiled::runbook).toList();
    }

    public Optional<Runbook> byId(String id) {
        return all().stream().filter(r -> r.id().equals(id)).findFirst();
    }

    public Optional<Runbook> forDiagnosis(Diagnosis d) {
        if (d == null) return Optional.empty();
        return choose(d.family().wireName(), d.cause(),
                d.supporting().stream().map(f -> new Clue(f.family().wireName(), f.cause(), f.weight())).toList());
    }

    /**
     * The closest runbook for a diagnosis of {@code family} with main {@code cause} and its reasons
     * {@code clues} (those of other families are ignored).
     */
    public Optional<Runbook> choose(String family, String cause, List<Clue> clues) {
        if (family == null) return Optional.empty();
        String fam = family.toLowerCase(Locale.ROOT);
        Compiled best = null;
        double bestScore = -1;
        for (Compiled c : runbooks) {
            Match m = c.runbook().match();
            if (m != null && m.family() != null && !m.family().equals(fam)) continue;
            double score;
            if (c.cause() == null) {
                score = m != null && m.family() != null ? 1 : 0;
            } else if (cause != null && c.cause().matcher(cause).find()) {
                score = 10; // the diagnosis's own cause
            } else {
                double w = clues.stream().filter(k -> fam.equals(k.family() == null ? null : k.family().toLowerCase(Locale.ROOT)))
                        .filter(k -> k.cause() != null && c.cause().matcher(k.cause()).find()).mapToDouble(Clue::weight).max().orElse(-1);
                if (w < 0) continue;
                score = 2 + w;
            }
            if (m != null && m.family() != null && c.cause() != null) score += 0.5; // a family and a pattern beat a pattern alone
            if (score > bestScore) {
                best = c;
                bestScore = score;
            }
        }
        return Optional.ofNullable(best).map(Compiled::runbook);
    }
}
