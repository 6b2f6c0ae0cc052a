-- Appends events to one stream. p_expected: NULL = any version, 0 = the stream must not exist,
-- n = the stream's last position must be n. Re-appending the same event ids is a no-op.
-- Runs as the log's owner, where no policy qual is added, so each lookup has one possible index:
-- `event_id` for the duplicate check, `(stream_id, stream_position)` for the stream's head; the
-- transaction's site is checked instead, and a stream of another site is refused. The ids are
-- collected into an array first, which the unique index on event_id answers. No NOTIFY here: the
-- caller sends it after commit (appendToStream, tx.notifyAfterCommit).
CREATE OR REPLACE FUNCTION svc_append(p_site text, p_stream text, p_expected bigint, p_events jsonb)
RETURNS TABLE (global_position bigint, stream_position bigint, duplicate boolean,
               tx_id xid8, recorded_at timestamptz, prev_hash text, hash text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ids uuid[];
  existing integer;
  last_position bigint;
  last_hash text;
  stream_site text;
  event jsonb;
  now_at timestamptz := clock_timestamp();
  current_tx xid8 := pg_current_xact_id();
  new_hash text;
BEGIN
  PERFORM svc_require_site(p_site);
  ids := ARRAY(SELECT (value->>'eventId')::uuid FROM jsonb_array_elements(p_events));
  SELECT count(*) INTO existing FROM events e WHERE e.event_id = ANY(ids);
  IF existing = cardinality(ids) THEN
    RETURN QUERY SELECT e.position, e.stream_position, true, e.tx_id, e.recorded_at, e.prev_hash, e.hash
      FROM events e WHERE e.event_id = ANY(ids) AND e.site_id = p_site ORDER BY e.position;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'these event ids belong to another site' USING ERRCODE = 'SV409';
    END IF;
    RETURN;
  ELSIF existing > 0 THEN
    RAISE EXCEPTION 'some of these event ids were already appended' USING ERRCODE = 'SV409';
  END IF;

  SELECT e.stream_position, e.hash, e.site_id INTO last_position, last_hash, stream_site
    FROM events e WHERE e.stream_id = p_stream ORDER BY e.stream_position DESC LIMIT 1;
  IF stream_site IS NOT NULL AND stream_site <> p_site THEN
    RAISE EXCEPTION 'stream % belongs to another site', p_stream USING ERRCODE = 'insufficient_privilege';
  END IF;
  last_position := coalesce(last_position, 0);
  IF p_expected IS NOT NULL AND p_expected <> last_position THEN
    RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, last_position, p_expected
      USING ERRCODE = 'SV409';
  END IF;

  FOR event IN SELECT value FROM jsonb_array_elements(p_events) LOOP
    last_position := last_position + 1;
    new_hash := svc_event_hash(last_hash, p_site, p_stream, last_position, (event->>'eventId')::uuid,
      event->>'type', (event->>'schemaVersion')::integer, event->'data', event->'metadata', now_at);
    INSERT INTO events (tx_id, site_id, stream_id, stream_position, event_id, type, schema_version, data,
                        metadata, recorded_at, prev_hash, hash)
    VALUES (current_tx, p_site, p_stream, last_position, (event->>'eventId')::uuid, event->>'type',
            (event->>'schemaVersion')::integer, event->'data', event->'metadata', now_at, last_hash, new_hash)
    RETURNING events.position INTO global_position;
    stream_position := last_position;
    duplicate := false;
    tx_id := current_tx;
    recorded_at := now_at;
    prev_hash := last_hash;
    hash := new_hash;
    RETURN NEXT;
    last_hash := new_hash;
  END LOOP;
END $$;
REVOKE ALL ON FUNCTION svc_append(text, text, bigint, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_append(text, text, bigint, jsonb) TO svc_app;
