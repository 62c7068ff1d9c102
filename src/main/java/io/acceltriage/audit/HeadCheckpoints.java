package io.acceltriage.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The chain's head, written now and then outside the database (a file on a volume the database's
 * writers cannot reach). A key keeps an editor without it from recomputing the chain, but not from
 * cutting its newest records off, or putting back an older copy of the database: the head as it was
 * a minute ago, kept elsewhere, shows both.
 */
@ApplicationScoped
class HeadCheckpoints {

    private static final Logger LOG = Logger.getLogger(HeadCheckpoints.class);

    private final Database database;
    private final Optional<Path> file;
    private final boolean serving;
    private long written = -1;

    HeadCheckpoints(Database database, @ConfigProperty(name = "acceltriage.audit.checkpoint-file") Optional<String> file,
            @ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean serving) {
        this.database = database;
        this.file = file.filter(f -> !f.isBlank()).map(Path::of);
        this.serving = serving;
    }

    /** Only the service writes checkpoints; the tools (audit verify among them) only read them. */
    @Scheduled(every = "${acceltriage.audit.checkpoint-every:60s}", delayed = "5s")
    synchronized void write() {
        if (!serving || file.isEmpty()) return;
        try {
            Map<String, Object> head = database.read(c -> {
                try (PreparedStatement ps = c.prepareStatement("select seq, hash from audit_head where id = 1"); ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("seq", rs.getLong(1));
                    m.put("hash", rs.getString(2));
                    return m;
                }
            });
            long seq = (Long) head.get("seq");
            if (seq == written) return;
            head.put("at", Instant.now().toString());
            Files.writeString(file.get(), Json.write(head) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.SYNC);
            written = seq;
        } catch (IOException | RuntimeException e) {
            LOG.warnf("audit: could not write the head checkpoint to %s: %s", file.get(), e.getMessage());
        }
    }

    /**
     * Why the chain disagrees with the newest checkpoint, or empty: read in the verifier's snapshot,
     * after its walk, with the head it walked to.
     */
    Optional<String> disagreement(Connection c, long headSeq, Long prunedThrough) throws SQLException {
        if (file.isEmpty() || !Files.exists(file.get())) return Optional.empty();
        String line;
        try {
            line = lastLine(file.get());
        } catch (IOException e) {
            return Optional.of("the head checkpoints in " + file.get() + " cannot be read: " + e.getMessage());
        }
        if (line == null || line.isBlank()) return Optional.empty();
        JsonNode cp = Json.read(line, JsonNode.class);
        long seq = cp.path("seq").asLong();
        String hash = cp.path("hash").asText();
        if (seq > headSeq) {
            return Optional.of("the log ends at " + headSeq + ", before record " + seq + " that the checkpoint of "
                    + cp.path("at").asText() + " saw: newer records were removed, or an older copy of the database put back");
        }
        if (seq == 0 || (prunedThrough != null && seq <= prunedThrough)) return Optional.empty();
        try (PreparedStatement ps = c.prepareStatement("select hash from audit_log where seq = ?")) {
            ps.setLong(1, seq);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !hash.equals(rs.getString(1))) {
                    return Optional.of("record " + seq + " is not the one the checkpoint of " + cp.path("at").asText()
                            + " saw: the chain was rewritten from there or before");
                }
            }
        }
        return Optional.empty();
    }

    /** The file's last line, read from its end: the file grows by a line a minute for as long as the service runs. */
    static String lastLine(Path path) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "r")) {
            long end = f.length();
            long pos = end - 1;
            while (pos >= 0) {
                f.seek(pos);
                if (f.read() == '\n' && pos != end - 1) break;
                pos--;
            }
            f.seek(pos + 1);
            byte[] b = new byte[(int) (end - pos - 1)];
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8).strip();
        }
    }
}
