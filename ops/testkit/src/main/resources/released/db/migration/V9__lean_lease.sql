-- Measured by ops/bench (README, "Performance", issue 12): no update of an outbox row is HOT,
-- because every state change rewrites status, which partial-index predicates read. So each
-- claim and each mark writes a new row version AND a new entry in every index whose predicate
-- that version satisfies. Index insertions were most of the database's work per relayed row:
-- dropping the four indexes below from a scratch copy took a claim+mark loop over 50,000 rows
-- from 6.8 s to 3.9 s.
--
-- Those four indexes serve operators and the API (search newest first, by correlation id, by
-- tenant, every version of an aggregate) and hold columns that never change. A row is leased
-- (IN_PROGRESS) only for the seconds between its claim and its mark, and at most a relay's
-- confirm window of rows is leased at any time, so the leased versions are left out of these
-- indexes: the claim now writes three index entries instead of seven. Queries that must see
-- leased rows as well (OpsMapper.search, OutboxMapper.findByAggregate) read them in a second
-- branch through message_outbox_lease_idx, which holds exactly the leased rows.
--
-- Uniqueness of (aggregate_type, aggregate_id, aggregate_version) does not rest on the index:
-- message_outbox_gapless_versions (V2) lets a version in only as its aggregate's next one. The
-- index stays unique over the rows it holds as a second line of defence.
--
-- Not CONCURRENTLY: a concurrent build waits for every transaction open in the database, and the
-- processes starting beside this one wait for Flyway's lock inside one, so concurrent start-ups
-- would deadlock. The builds hold off writes to the outbox while they run (about a second per
-- million rows on the benchmark machine). On a large outbox, create the four indexes by hand
-- with CREATE INDEX CONCURRENTLY (same names and definitions) before deploying: IF NOT EXISTS
-- then skips them here, and only the cheap drops remain (README, "Upgrading").

CREATE INDEX IF NOT EXISTS message_outbox_created_unleased_idx
    ON message_outbox (created_at DESC, id DESC)
    WHERE status <> 'IN_PROGRESS';

CREATE INDEX IF NOT EXISTS message_outbox_correlation_unleased_idx
    ON message_outbox (correlation_id)
    WHERE correlation_id IS NOT NULL AND status <> 'IN_PROGRESS';

CREATE INDEX IF NOT EXISTS message_outbox_tenant_unleased_idx
    ON message_outbox (tenant_id, created_at)
    WHERE tenant_id IS NOT NULL AND status <> 'IN_PROGRESS';

CREATE UNIQUE INDEX IF NOT EXISTS message_outbox_aggregate_unleased_idx
    ON message_outbox (aggregate_type, aggregate_id, aggregate_version)
    WHERE status <> 'IN_PROGRESS';

DROP INDEX IF EXISTS message_outbox_created_idx;
DROP INDEX IF EXISTS message_outbox_correlation_idx;
DROP INDEX IF EXISTS message_outbox_tenant_idx;
DROP INDEX IF EXISTS message_outbox_aggregate_idx;
