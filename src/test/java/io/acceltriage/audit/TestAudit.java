package io.acceltriage.audit;

import io.acceltriage.store.Database;

/** Test access to an audit log over a test database, for tests outside this package. */
public final class TestAudit {

    private TestAudit() {}

    public static AuditLog on(Database database) {
        return new AuditLog(database);
    }

    public static AuditReader reader(Database database) {
        return new AuditReader(database);
    }
}
