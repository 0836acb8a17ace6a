package dev.outbox.relay.cdc;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.testkit.TestDatabase;
import java.util.UUID;
import javax.sql.DataSource;

/** What the CDC tests share: the server must decode logically, and rows read as polling reads them. */
public final class CdcTestSupport {
    private CdcTestSupport() {}

    /** Fails (never skips) when the test server cannot decode logically: .ci/run configures it. */
    public static void requireLogical(TestDatabase db) {
        Object level = db.scalar("SELECT current_setting('wal_level')");
        if (!"logical".equals(level)) {
            throw new IllegalStateException("the CDC tests need wal_level = logical on the test server, it has " + level
                    + ": ALTER SYSTEM SET wal_level = logical and restart PostgreSQL (.ci/run and ops/run.sh do)");
        }
    }

    /** The row as the polling relay's mapper reads it (by the ops lookup: same columns, same types). */
    static OutboxRecord read(DataSource ds, OutboxMapper mapper, UUID id) {
        return mapper.findById(id);
    }
}
