-- The relay's claim (OutboxMapper.xml, with its SET LOCALs) and fenced mark, 256 rows at a time, each in a
-- transaction of its own, until nothing is left; CLAIMKEY is id (the product) or ctid (a variant).
\timing on
DO $$
DECLARE ids uuid[]; toks bigint[]; n int := 0; k int;
BEGIN
  LOOP
    SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
    WITH x AS (
    UPDATE message_outbox o
       SET status = 'IN_PROGRESS', locked_by = 'r1', locked_at = now(),
           lease_token = nextval('message_outbox_lease_token_seq'), attempt_count = o.attempt_count + 1
     WHERE o.CLAIMKEY = ANY(ARRAY(
           SELECT c.CLAIMKEY FROM message_outbox c
            WHERE c.status IN ('PENDING', 'RETRYABLE_FAILED') AND c.next_attempt_at <= now()
              AND (c.aggregate_version IS NULL OR c.message_type = ANY('{}'::text[])
                   OR NOT EXISTS (SELECT 1 FROM message_outbox p
                         WHERE p.aggregate_type = c.aggregate_type AND p.aggregate_id = c.aggregate_id
                           AND p.aggregate_version < c.aggregate_version
                           AND p.status NOT IN ('PUBLISHED', 'CANCELLED') AND p.aggregate_version IS NOT NULL))
            ORDER BY c.next_attempt_at, c.created_at LIMIT 256 FOR UPDATE SKIP LOCKED))
    RETURNING o.id, o.lease_token, o.payload::text AS p, o.headers::text AS h) SELECT array_agg(id), array_agg(lease_token) INTO ids, toks FROM x;
    COMMIT;
    EXIT WHEN ids IS NULL;
    UPDATE message_outbox o SET status = 'PUBLISHED', published_at = now(), locked_by = NULL, locked_at = NULL, lease_token = NULL
     WHERE o.lease_token = ANY(toks) AND o.id = ANY(ids) AND o.status = 'IN_PROGRESS' AND o.locked_by = 'r1';
    GET DIAGNOSTICS k = ROW_COUNT;
    COMMIT;
    n := n + k;
  END LOOP;
  RAISE NOTICE 'published %', n;
END $$;
