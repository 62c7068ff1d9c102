package io.acceltriage.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Fresh stores for tests: an in-memory H2 always, and PostgreSQL when ACCELTRIAGE_TEST_POSTGRES_URL
 * is set (CI sets it), each in a schema of its own so runs never see each other's rows.
 */
public final class TestDatabases {

    private TestDatabases() {}

    /**
     * A fresh in-memory H2 store, for tests that need a store and not every kind of one. (Asking {@link #all()} for its
     * first would open a PostgreSQL pool too, never closed: a run of such tests ran PostgreSQL out of connections.)
     */
    public static Database h2() {
        return new Database(config("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", 4));
    }

    /** A fresh H2 store and, when ACCELTRIAGE_TEST_POSTGRES_URL is set, a fresh schema on PostgreSQL (a small pool). */
    public static List<Database> all() {
        List<Database> out = new ArrayList<>();
        out.add(h2());
        String pg = System.getenv("ACCELTRIAGE_TEST_POSTGRES_URL");
        if (pg != null && !pg.isBlank()) {
            String schema = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            try (Connection c = DriverManager.getConnection(pg); var st = c.createStatement()) {
                st.execute("create schema " + schema);
            } catch (SQLException e) {
                throw new IllegalStateException("ACCELTRIAGE_TEST_POSTGRES_URL is set but PostgreSQL refused: " + e.getMessage(), e);
            }
            out.add(new Database(config(pg + (pg.contains("?") ? "&" : "?") + "currentSchema=" + schema, 2)));
        }
        return out;
    }

    static StoreConfig config(String url, int pool) {
        return new StoreConfig() {
            @Override
            public String dataDir() {
                return "target";
            }

            @Override
            public Db db() {
                return new Db() {
                    @Override
                    public Optional<String> url() {
                        return Optional.of(url);
                    }

                    @Override
                    public Optional<String> user() {
                        return Optional.empty();
                    }

                    @Override
                    public Optional<String> password() {
                        return Optional.empty();
                    }

                    @Override
                    public int poolSize() {
                        return pool;
                    }
                };
            }
        };
    }
}
