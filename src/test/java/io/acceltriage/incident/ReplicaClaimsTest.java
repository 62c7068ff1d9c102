package io.acceltriage.incident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.cluster.Membership;
import io.acceltriage.sandbox.SimulatedApiServer;
import io.acceltriage.store.Database;
import io.acceltriage.store.StoreException;
import io.acceltriage.store.TestDatabases;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What replicas on one database claim from each other, two claimers at a time: the filing of the same
 * inbox rows, and the triage of one incident. On H2 always, on PostgreSQL when ACCELTRIAGE_TEST_POSTGRES_URL is set.
 */
class ReplicaClaimsTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static SimulatedApiServer server;

    @BeforeAll
    static void world() {
        server = SimulatedApiServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Stream<Database> databases() {
        return TestDatabases.all().stream();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void twoFilersReadingTheSameInboxFileEachAlertOnceAndOpenOneIncidentPerSubject(Database database) throws Exception {
        int nodes = 12;
        for (int i = 0; i < nodes; i++) {
            // Two alerts per node: the second must join the first's incident whichever filer takes it.
            store(database, "n" + i + "a", "gpu-race-" + i);
            store(database, "n" + i + "b", "gpu-race-" + i);
        }
        AuditLog audit = TestAudit.on(database);
        IncidentStore incidents = new IncidentStore(database);
        AlertInbox inbox = new AlertInbox(database, audit, null);
        List<AlertFiler> replicas = List.of(filer(database, audit, incidents, inbox), filer(database, audit, incidents, inbox));
        // Both read the same rows before either files, as two replicas do when a delivery lands.
        List<StoredAlert> seenByBoth = inbox.unprocessed(100);
        assertEquals(2 * nodes, seenByBoth.size());

        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<String>>> runs = new ArrayList<>();
            for (AlertFiler f : replicas) {
                runs.add(pool.submit(() -> {
                    together.await();
                    // In chunks, as the worker files: the replicas interleave chunk by chunk.
                    List<String> ids = new ArrayList<>();
                    for (int from = 0; from < seenByBoth.size(); from += 5) {
                        ids.addAll(f.file(seenByBoth.subList(from, Math.min(seenByBoth.size(), from + 5))));
                    }
                    return ids;
                }));
            }
            List<String> first = runs.get(0).get();
            List<String> second = runs.get(1).get();
            for (int i = 0; i < seenByBoth.size(); i++) {
                assertTrue(first.get(i) == null ^ second.get(i) == null, "alert " + i + " filed by exactly one: " + first.get(i) + " / " + second.get(i));
            }
        } finally {
            pool.shutdownNow();
        }

        assertEquals(2L * nodes, count(database, "select count(*) from audit_log where kind = 'alert.filed'"));
        assertEquals((long) nodes, count(database, "select count(*) from incidents"));
        assertEquals((long) nodes, count(database, "select count(*) from audit_log where kind = 'incident.opened'"));
        assertEquals((long) nodes, count(database, "select count(distinct subject_key) from incidents"));
        assertEquals(0L, count(database, "select count(*) from alerts where processed_at is null"));
        assertEquals(2L * nodes, count(database, "select sum(triage_wanted) from incidents"), "one triage wanted per firing alert");
        assertEquals(2L * nodes, count(database, "select sum(alert_count) from incidents"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void ofTwoReplicasClaimingOneTriageOneWinsAndADeadHoldersLeaseIsTakenOver(Database database) throws Exception {
        IncidentStore incidents = new IncidentStore(database);
        String id = database.transaction(tx -> {
            String opened = incidents.open(tx, Subject.node("gpu-lease-" + UUID.randomUUID().toString().substring(0, 8)), null, T0).id();
            incidents.alertsFiled(tx, opened, 1, 1);
            return opened;
        });
        Instant now = Instant.now();
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Optional<IncidentStore.TriageClaim>> claims = new ArrayList<>();
        try {
            List<Future<Optional<IncidentStore.TriageClaim>>> runs = new ArrayList<>();
            for (String replica : List.of("replica-a", "replica-b")) {
                Callable<Optional<IncidentStore.TriageClaim>> claim = () -> {
                    together.await();
                    return incidents.claimTriage(id, replica, now, now.plus(Duration.ofSeconds(30)));
                };
                runs.add(pool.submit(claim));
            }
            for (var r : runs) claims.add(r.get());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, claims.stream().filter(Optional::isPresent).count(), "exactly one replica holds the triage: " + claims);
        String winner = claims.get(0).isPresent() ? "replica-a" : "replica-b";
        String loser = winner.equals("replica-a") ? "replica-b" : "replica-a";
        assertTrue(incidents.dueForTriage(now, 100).stream().noneMatch(id::equals), "a held triage is not due");

        // The winner dies without finishing; once its lease has run out the other replica takes the triage over.
        Instant later = now.plus(Duration.ofSeconds(31));
        assertTrue(incidents.dueForTriage(later, 100).contains(id));
        IncidentStore.TriageClaim takenOver = incidents.claimTriage(id, loser, later, later.plus(Duration.ofSeconds(30))).orElseThrow();
        // The dead winner's late finish counts for nothing: the lease is no longer its.
        incidents.finishTriage(claims.stream().flatMap(Optional::stream).findFirst().orElseThrow(), winner);
        assertTrue(incidents.claimTriage(id, winner, later, later.plus(Duration.ofSeconds(30))).isEmpty(), "still held by " + loser);

        // An alert filed while the triage runs wants a triage of its own after this one.
        database.transaction(tx -> {
            incidents.alertsFiled(tx, id, 1, 1);
            return null;
        });
        incidents.finishTriage(takenOver, loser);
        assertTrue(incidents.dueForTriage(later, 100).contains(id), "the alert filed during the triage is triaged again");
        IncidentStore.TriageClaim again = incidents.claimTriage(id, winner, later, later.plus(Duration.ofSeconds(30))).orElseThrow();
        assertEquals(2, again.wanted());
        incidents.finishTriage(again, winner);
        assertTrue(incidents.dueForTriage(later, 100).stream().noneMatch(id::equals), "nothing more is wanted");
        assertTrue(incidents.claimTriage(id, loser, later, later.plus(Duration.ofSeconds(30))).isEmpty());
    }

    /**
     * The database itself, not only the filing lock, allows one open incident per subject: two filings of
     * alerts about one node race past any lock (each in its own transaction, the slower still open when the
     * faster commits), and the one that comes second files under the incident the first opened.
     */
    @ParameterizedTest
    @MethodSource("databases")
    void twoWritersRacingToOpenAnIncidentForOneSubjectOpenOneAndTheSecondFilesUnderIt(Database database) throws Exception {
        IncidentStore incidents = new IncidentStore(database);
        Correlation correlation = new Correlation(new Membership(server.client()), incidents, database, 10, Duration.ofSeconds(60));
        String node = "gpu-open-" + UUID.randomUUID().toString().substring(0, 8);
        store(database, "o1-" + node, node);
        store(database, "o2-" + node, node);
        List<StoredAlert> alerts = new AlertInbox(database, TestAudit.on(database), null).unprocessed(100).stream()
                .filter(a -> a.alert().fingerprint().endsWith(node)).toList();
        assertEquals(2, alerts.size());
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Correlator.Filing> filings = new ArrayList<>();
        try {
            List<Future<Correlator.Filing>> runs = new ArrayList<>();
            for (StoredAlert a : alerts) {
                About about = correlation.about(a.alert(), a.receivedAt());
                runs.add(pool.submit(() -> database.transaction(tx -> {
                    try {
                        together.await();
                        Correlator.Filing f = correlation.file(tx, a.alert(), about);
                        Thread.sleep(300); // still uncommitted while the other writer files
                        return f;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })));
            }
            for (var r : runs) filings.add(r.get());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, filings.stream().filter(Correlator.Filing::opened).count(), "opened by exactly one: " + filings);
        assertEquals(filings.get(0).incidentId(), filings.get(1).incidentId(), "both alerts under one incident");
        assertEquals(1L, count(database, "select count(*) from incidents where subject_key = 'node:" + node + "'"));

        // Past every lock, the store refuses a second open incident of the subject outright...
        assertThrows(StoreException.class, () -> database.transaction(tx -> incidents.open(tx, Subject.node(node), node, T0)));
        // ...and takes a new one once the first is resolved.
        database.transaction(tx -> {
            incidents.setState(tx, filings.get(0).incidentId(), IncidentState.RESOLVED);
            return null;
        });
        Correlator.Index.Opened next = database.transaction(tx -> incidents.openOrJoin(tx, Subject.node(node), node, T0));
        assertTrue(next.opened());
        assertNotEquals(filings.get(0).incidentId(), next.id());
    }

    private static AlertFiler filer(Database database, AuditLog audit, IncidentStore incidents, AlertInbox inbox) {
        Correlation correlation = new Correlation(new Membership(server.client()), incidents, database, 10, Duration.ofSeconds(60));
        return new AlertFiler(inbox, incidents, database, audit, correlation);
    }

    private static void store(Database database, String fingerprint, String node) {
        InboxRows.insert(database, "{}:{test=race}", fingerprint, "firing",
                Map.of("alertname", "GpuXidError", "node", node, "gpu", "0", "xid", "79"), T0);
    }

    private static long count(Database database, String sql) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
