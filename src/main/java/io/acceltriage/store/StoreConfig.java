package io.acceltriage.store;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.util.Optional;

/** Where incidents, alerts, actions and the audit log are kept. */
@ConfigMapping(prefix = "acceltriage")
public interface StoreConfig {

    /** Folder of the embedded H2 database (ACCELTRIAGE_DATA_DIR). */
    @WithName("data-dir")
    @WithDefault("./data")
    String dataDir();

    Db db();

    interface Db {
        /** JDBC URL (ACCELTRIAGE_DB_URL); empty means the embedded H2 file under the data folder. */
        Optional<String> url();

        Optional<String> user();

        Optional<String> password();

        /** Connections in the pool (ACCELTRIAGE_DB_POOL_SIZE). */
        @WithName("pool-size")
        @WithDefault("8")
        int poolSize();
    }
}
