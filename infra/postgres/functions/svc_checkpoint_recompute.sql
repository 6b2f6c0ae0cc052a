-- Recomputes a site's head hash, event count and stream count over its events in log order
-- (transaction, position). At each of the site's checkpoints, it compares them with what that
-- checkpoint records. It returns the first checkpoint that differs; every later head then differs
-- too, because each head chains on the one before. It returns no row when all of them agree.
-- It makes one pass over the site's events inside the database, so the caller's memory stays
-- bounded whatever the size of the log. It runs as the caller, under the transaction's site.
CREATE OR REPLACE FUNCTION svc_checkpoint_recompute(p_site text)
RETURNS TABLE (checkpoint_seq bigint, recorded_head text, recomputed_head text, recorded_events bigint,
               recomputed_events bigint, recorded_streams bigint, recomputed_streams bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  checkpoints refcursor;
  cp_seq bigint;
  cp_tx xid8;
  cp_position bigint;
  cp_head text;
  cp_events bigint;
  cp_streams bigint;
  last_tx xid8;
  last_position bigint;
  event record;
  head text := '';
  events_seen bigint := 0;
  streams_seen bigint := 0;
BEGIN
  SELECT c.tx_id, c.position INTO last_tx, last_position
    FROM log_checkpoints c WHERE c.site_id = p_site ORDER BY c.seq DESC LIMIT 1;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  OPEN checkpoints FOR
    SELECT c.seq, c.tx_id, c.position, c.head_hash, c.event_count, c.stream_count
      FROM log_checkpoints c WHERE c.site_id = p_site ORDER BY c.seq;
  FETCH checkpoints INTO cp_seq, cp_tx, cp_position, cp_head, cp_events, cp_streams;
  FOR event IN
    SELECT e.tx_id, e.position, e.stream_position, e.hash FROM events e
     WHERE e.site_id = p_site AND (e.tx_id, e.position) <= (last_tx, last_position)
     ORDER BY e.tx_id, e.position
  LOOP
    -- Every checkpoint whose last event comes before this one is complete: compare it.
    WHILE cp_seq IS NOT NULL AND (event.tx_id, event.position) > (cp_tx, cp_position) LOOP
      IF (head, events_seen, streams_seen) IS DISTINCT FROM (cp_head, cp_events, cp_streams) THEN
        RETURN QUERY SELECT cp_seq, cp_head, head, cp_events, events_seen, cp_streams, streams_seen;
        CLOSE checkpoints;
        RETURN;
      END IF;
      FETCH checkpoints INTO cp_seq, cp_tx, cp_position, cp_head, cp_events, cp_streams;
    END LOOP;
    head := svc_checkpoint_next_head(head, event.position, event.hash);
    events_seen := events_seen + 1;
    IF event.stream_position = 1 THEN
      streams_seen := streams_seen + 1;
    END IF;
  END LOOP;
  WHILE cp_seq IS NOT NULL LOOP
    IF (head, events_seen, streams_seen) IS DISTINCT FROM (cp_head, cp_events, cp_streams) THEN
      RETURN QUERY SELECT cp_seq, cp_head, head, cp_events, events_seen, cp_streams, streams_seen;
      EXIT;
    END IF;
    FETCH checkpoints INTO cp_seq, cp_tx, cp_position, cp_head, cp_events, cp_streams;
  END LOOP;
  CLOSE checkpoints;
END $$;
