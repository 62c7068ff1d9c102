package io.acceltriage.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.drill.DrillResult;
import io.acceltriage.drill.DrillRunner;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The breach watch reads only what can still change: a drill's incident, resolved with every objective
 * judged, is remembered after one check and its records are not read at the next; the pools' budgets
 * still count it.
 */
@QuarkusTest
class ObjectiveWatchIncrementalTest {

    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database freshDatabase;

    @jakarta.inject.Inject
    ObjectiveWatch watch;

    @jakarta.inject.Inject
    DrillRunner drills;

    @Test
    void aResolvedIncidentJudgedOnceIsNotReadAgain() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        DrillResult r = drills.run("device-plugin", "test");
        assertTrue(r.passed(), r.toString());

        watch.check(Instant.now());
        assertTrue(watch.remembers(r.incidentId()), "resolved and judged: remembered");
        int first = watch.lastRead();

        watch.check(Instant.now());
        assertTrue(watch.remembers(r.incidentId()));
        assertTrue(watch.lastRead() <= first - 1, "the resolved incident's records were not read again: " + first + " then " + watch.lastRead());
        assertEquals(0, watch.check(Instant.now()), "nothing new to tell");
    }
}
