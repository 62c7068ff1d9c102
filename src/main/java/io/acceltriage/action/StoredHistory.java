package io.acceltriage.action;

import io.acceltriage.policy.ActionHistory;
import io.acceltriage.store.Database;
import java.time.Instant;
import java.util.List;

/** Past actions from the actions table, for the engine's budgets, cooldowns and breaker. */
public final class StoredHistory implements ActionHistory {

    private final ActionStore store;

    public StoredHistory(Database database) {
        this.store = new ActionStore(database);
    }

    @Override
    public List<Past> since(Instant since) {
        return store.countedSince(since).stream().map(r -> new Past(r.kind(), r.target(), r.createdAt())).toList();
    }
}
