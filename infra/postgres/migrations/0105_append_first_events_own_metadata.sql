-- An event of svc_append_first_events may carry its own metadata (group commit: the creates of
-- several requests, each with its actor and request id, share one append); without it the call's
-- metadata applies, as before. Otherwise 0102's definition: run as the owner, site checked, no NOTIFY.
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
           e->'data', coalesce(e->'metadata', p_metadata), now_at, NULL,
           svc_event_hash(NULL, p_site, e->>'streamId', 1, (e->>'eventId')::uuid, e->>'type',
                          (e->>'schemaVersion')::integer, e->'data', coalesce(e->'metadata', p_metadata), now_at)
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(e, n)
     ORDER BY n
    RETURNING events.position, events.tx_id, events.stream_id, events.event_id, events.recorded_at, events.hash
  )
  SELECT * FROM inserted;
END $$;
