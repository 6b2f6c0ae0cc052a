-- 0005 made svc_append_first_events run as the log's owner, check the transaction's site and stop
-- notifying inside the transaction, but migrations run in name order: on a new database 0101 ran
-- after 0005 and put back its first version (as the caller, no site check, a NOTIFY that holds the
-- database-wide notify lock through each commit, so every create committed one at a time). This
-- restores 0005's definition on every database, whatever order it was migrated in.
CREATE OR REPLACE FUNCTION svc_append_first_events(p_site text, p_events jsonb, p_metadata jsonb)
RETURNS TABLE (global_position bigint, event_tx_id xid8, event_stream_id text, new_event_id uuid, event_recorded_at timestamptz, event_hash text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  now_at timestamptz := clock_timestamp();
BEGIN
  PERFORM svc_require_site(p_site);
  -- Every stream must be new: one of another site (or of this one) fails the unique index, as a conflict.
  RETURN QUERY
  WITH inserted AS (
    INSERT INTO events (site_id, stream_id, stream_position, event_id, type, schema_version, data, metadata,
                        recorded_at, prev_hash, hash)
    SELECT p_site, e->>'streamId', 1, (e->>'eventId')::uuid, e->>'type', (e->>'schemaVersion')::integer,
           e->'data', p_metadata, now_at, NULL,
           svc_event_hash(NULL, p_site, e->>'streamId', 1, (e->>'eventId')::uuid, e->>'type',
                          (e->>'schemaVersion')::integer, e->'data', p_metadata, now_at)
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(e, n)
     ORDER BY n
    RETURNING events.position, events.tx_id, events.stream_id, events.event_id, events.recorded_at, events.hash
  )
  SELECT * FROM inserted;
END $$;
