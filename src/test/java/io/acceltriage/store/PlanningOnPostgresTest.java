package io.acceltriage.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.ResultSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every statement on PostgreSQL is planned with its values and the table as it is when it runs: a cached generic plan,
 * settled while the alerts table was empty, scanned the whole table for each webhook's duplicate check as a storm
 * grew it (15-30 ms a delivery at 20,000 alerts, until autovacuum analysed the table).
 */
class PlanningOnPostgresTest {

    @Test
    void eachSessionPlansEveryStatementWithItsOwnValues() throws Exception {
        List<Database> stores = TestDatabases.all();
        Database postgres = stores.stream().filter(Database::isPostgres).findFirst().orElse(null);
        try {
            assumeTrue(postgres != null, "ACCELTRIAGE_TEST_POSTGRES_URL is not set");
            String mode = postgres.read(c -> {
                try (var st = c.createStatement(); ResultSet rs = st.executeQuery("show plan_cache_mode")) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            assertEquals("force_custom_plan", mode);
        } finally {
            stores.forEach(Database::close);
        }
    }
}
