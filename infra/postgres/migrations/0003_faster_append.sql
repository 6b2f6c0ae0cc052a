-- svc_append, faster: under row-level security the duplicate check of 0001 (event_id IN (SELECT ...
-- FROM jsonb_array_elements(...))) was planned as a sequential scan of the whole log, so every append
-- got slower as the log grew. The ids are now collected into an array first, which the unique index
-- on event_id answers. The function also returns what the caller needs to build the stored events
-- (transaction id, time, hashes), which saves a second query per append. The first three columns are
-- unchanged, so callers of the 0001 version keep working.
-- Readers are no longer woken by a NOTIFY inside the append: a transaction that notifies holds a
-- database-wide lock from before its commit until after the commit's WAL flush, so every appending
-- transaction committed one at a time. The application notifies after commit instead.
DROP FUNCTION IF EXISTS svc_append(text, text, bigint, jsonb);

CREATE FUNCTION svc_append(p_site text, p_stream text, p_expected bigint, p_events jsonb)
RETURNS TABLE (global_position bigint, stream_position bigint, duplicate boolean,
               tx_id xid8, recorded_at timestamptz, prev_hash text, hash text)
LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  existing integer;
  last_position bigint;
  last_hash text;
  event jsonb;
  now_at timestamptz := clock_timestamp();
  current_tx xid8 := pg_current_xact_id();
  new_hash text;
BEGIN
  ids := ARRAY(SELECT (value->>'eventId')::uuid FROM jsonb_array_elements(p_events));
  SELECT count(*) INTO existing FROM events e WHERE e.event_id = ANY(ids);
  IF existing = cardinality(ids) THEN
    RETURN QUERY SELECT e.position, e.stream_position, true, e.tx_id, e.recorded_at, e.prev_hash, e.hash
      FROM events e WHERE e.event_id = ANY(ids) ORDER BY e.position;
    RETURN;
  ELSIF existing > 0 THEN
    RAISE EXCEPTION 'some of these event ids were already appended' USING ERRCODE = 'SV409';
  END IF;

  SELECT e.stream_position, e.hash INTO last_position, last_hash
    FROM events e WHERE e.stream_id = p_stream ORDER BY e.stream_position DESC LIMIT 1;
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
  -- No NOTIFY here: the caller sends it after commit (appendToStream, tx.notifyAfterCommit).
END $$;
