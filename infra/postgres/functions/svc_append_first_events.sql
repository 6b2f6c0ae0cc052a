-- Bulk starts of new streams (bulk item creates): one event per stream, each stream new, in one
-- statement. Hashes as in svc_append (a first event has no previous hash); a stream that already
-- exists violates events_stream_position_unique and fails the whole append (a conflict). An event may
-- carry its own metadata (group commit: several requests' creates share one append); without it the
-- call's metadata applies. Runs as the owner, site checked, no NOTIFY (see svc_append).
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
REVOKE ALL ON FUNCTION svc_append_first_events(text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_append_first_events(text, jsonb, jsonb) TO svc_app;
