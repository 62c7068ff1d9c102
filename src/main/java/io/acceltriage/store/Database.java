package io.acceltriage.store;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ConnectionValidator;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.exceptionsorter.PostgreSQLExceptionSorter;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

/**
 * The one connection pool of the service. H2 or PostgreSQL is chosen at run time from the JDBC URL,
 * so a single build serves the embedded default and production; Flyway brings either schema up to
 * date before anything else touches it.
 */
@ApplicationScoped
public class Database {

    private static final Logger LOG = Logger.getLogger(Database.class);

    /** How long opening the store may wait for its first connection (H2's stale lock file after a crash). */
    static final Duration OPENING_WAIT = Duration.ofSeconds(30);
    /**
     * How long a caller waits for a connection once the store is open. The webhook waits this long at
     * most before it answers 503 and Alertmanager retries: a webhook that waited 30 s per delivery in an
     * outage would tie up a worker thread per delivery. A pool busy with a storm hands out connections
     * in well under a second, so 5 s is only ever reached when the store is really unavailable.
     */
    static final Duration RUNTIME_WAIT = Duration.ofSeconds(5);
    /**
     * How long one attempt to open a PostgreSQL connection may take. Well under {@link #RUNTIME_WAIT}: the pool
     * opens connections one at a time and retries a failed attempt once, so an attempt that hangs (a connection
     * made during a partition that never answers) must fail early enough for the retry, and for the callers
     * queued behind it, to get a connection within their wait. A login on a reachable server takes milliseconds.
     */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(2);

    private final AgroalDataSource pool;
    private final String url;
    /** The data folder when the store is the embedded H2 file; null otherwise. */
    private final Path embeddedDir;
    /** Held while this process runs the service on the embedded file (see {@link #holdEmbeddedFile}). */
    private java.nio.channels.FileChannel serviceLock;

    Database(StoreConfig config) {
        boolean embedded = config.db().url().filter(u -> !u.isBlank()).isEmpty();
        this.embeddedDir = embedded ? Path.of(config.dataDir()).toAbsolutePath().normalize() : null;
        this.url = config.db().url().filter(u -> !u.isBlank()).orElseGet(() -> embeddedUrl(config.dataDir()));
        if (url.startsWith("jdbc:h2:") && System.getProperty("h2.bindAddress") == null) {
            // AUTO_SERVER's TCP server (for `audit verify` beside the service) otherwise listens on every interface.
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
        String user = config.db().user().orElse(url.startsWith("jdbc:h2:") ? "sa" : "");
        String password = config.db().password().orElse("");
        boolean postgres = url.startsWith("jdbc:postgresql:");
        try {
            this.pool = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                    .connectionPoolConfiguration(cp -> {
                        cp.maxSize(config.db().poolSize())
                                // Generous while opening: after a crash H2 first proves its lock file stale, which
                                // takes seconds on a busy machine. Shortened to RUNTIME_WAIT once the store is open.
                                .acquisitionTimeout(OPENING_WAIT)
                                .connectionFactoryConfiguration(cf -> {
                                    cf.connectionProviderClass(driverFor(url))
                                            .jdbcUrl(url)
                                            .principal(user.isEmpty() ? null : new NamePrincipal(user))
                                            .credential(new SimplePassword(password));
                                    if (postgres) {
                                        // A server that accepts TCP but never answers (a partition, a hung host) must not
                                        // hold a connection attempt for ever; a URL that sets these wins.
                                        cf.jdbcProperty("connectTimeout", Long.toString(CONNECT_WAIT.toSeconds()))
                                                .jdbcProperty("loginTimeout", Long.toString(CONNECT_WAIT.toSeconds()))
                                                // Every statement planned with its values and the table as it is now
                                                // (PostgreSQL 12+). A prepared statement settles on a generic plan after
                                                // five runs: the webhook's duplicate check, first run on an empty alerts
                                                // table, kept a sequential scan while a storm grew the table until autovacuum
                                                // next analysed it (15-30 ms a delivery at 20,000 alerts: the
                                                // acknowledgement's p99). Statements stay prepared (prepareThreshold=0,
                                                // unprepared, planned alike but parsed every time, filed 25 % slower).
                                                .jdbcProperty("options", "-c plan_cache_mode=force_custom_plan");
                                    }
                                    return cf;
                                });
                        if (postgres) {
                            // A connection cut by an outage or a failover is never handed out again: checked on every
                            // borrow (one round trip) and dropped at its first fatal error, so the pool refills with
                            // fresh connections the moment PostgreSQL is back and the service recovers by itself.
                            cp.validateOnBorrow(true)
                                    .connectionValidator(ConnectionValidator.defaultValidatorWithTimeout(2))
                                    .exceptionSorter(new PostgreSQLExceptionSorter());
                        }
                        return cp;
                    }));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the store at " + redacted(url)
                    + ": check ACCELTRIAGE_DB_URL, ACCELTRIAGE_DB_USER and ACCELTRIAGE_DB_PASSWORD", e);
        }
        Flyway.configure().dataSource(pool).locations("classpath:db/migration").load().migrate();
        pool.getConfiguration().connectionPoolConfiguration().setAcquisitionTimeout(RUNTIME_WAIT);
        LOG.infof("store: %s", redacted(url));
    }

    /** The driver by URL, named outright: DriverManager discovery is not reliable in every class loader. */
    static Class<? extends java.sql.Driver> driverFor(String url) {
        if (url.startsWith("jdbc:h2:")) return org.h2.Driver.class;
        if (url.startsWith("jdbc:postgresql:")) return org.postgresql.Driver.class;
        throw new IllegalStateException("unsupported store URL " + redacted(url)
                + ": ACCELTRIAGE_DB_URL must be jdbc:postgresql://… (or empty for the embedded H2)");
    }

    static String embeddedUrl(String dataDir) {
        // AUTO_SERVER lets the `audit verify` command read the file while the service holds it.
        // WRITE_DELAY=0: H2 otherwise writes commits up to 500 ms late, and an alert acknowledged in
        // that window would not survive a kill -9 (CrashDurabilityIT caught exactly that).
        return "jdbc:h2:file:" + Path.of(dataDir).toAbsolutePath().normalize().resolve("acceltriage")
                + ";AUTO_SERVER=TRUE;WRITE_DELAY=0";
    }

    /** The URL without credentials, for logs and errors. */
    static String redacted(String url) {
        return url.replaceAll("(?i)(password|user)=[^&;]*", "$1=<secret>");
    }

    /**
     * Marks this process as the service on the embedded H2 file, for as long as it runs. H2 lets a
     * second process in through AUTO_SERVER (which `audit verify` needs), but two services on one
     * file would both file and triage every alert: the second is refused with what to do instead.
     * Empty when this process holds the file (or the store is not the embedded file); else the reason.
     */
    public synchronized java.util.Optional<String> holdEmbeddedFile() {
        if (embeddedDir == null || serviceLock != null) return java.util.Optional.empty();
        Path lock = embeddedDir.resolve("acceltriage.service.lock");
        try {
            java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(lock,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
            if (channel.tryLock() == null) {
                channel.close();
                return java.util.Optional.of(lock + ": another acceltriage service runs on the embedded store in " + embeddedDir
                        + "; the embedded H2 store serves one process. Stop the other, give this one its own ACCELTRIAGE_DATA_DIR,"
                        + " or run every replica on one PostgreSQL database (ACCELTRIAGE_DB_URL=jdbc:postgresql://…)");
            }
            serviceLock = channel;
            return java.util.Optional.empty();
        } catch (java.io.IOException | java.nio.channels.OverlappingFileLockException e) {
            return java.util.Optional.of(lock + ": cannot lock it (" + e.getMessage() + "); check that " + embeddedDir + " is writable");
        }
    }

    public boolean isPostgres() {
        return url.startsWith("jdbc:postgresql:");
    }

    /** Runs work in one transaction: committed when it returns, rolled back when it throws. */
    public <T> T inTransaction(SqlWork<T> work) {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    /** Runs work in one transaction that the stages compose through {@link Tx}; committed when it returns. */
    public <T> T transaction(TxWork<T> work) {
        return inTransaction(c -> work.run(Tx.over(c)));
    }

    /** Reads with auto-commit. */
    public <T> T read(SqlWork<T> work) {
        try (Connection c = pool.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    /** True when a connection can be had and answers; the readiness check uses it. */
    public boolean reachable() {
        try (Connection c = pool.getConnection()) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    @PreDestroy
    void close() {
        pool.close();
        if (serviceLock != null) {
            try {
                serviceLock.close();
            } catch (java.io.IOException ignored) {
                // the process is ending; the lock goes with it
            }
        }
    }

    /** Work in a transaction, for the stages: no JDBC types, failures are {@link StoreException}. */
    @FunctionalInterface
    public interface TxWork<T> {
        T run(Tx tx);
    }

    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }
}
