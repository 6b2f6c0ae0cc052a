-- A command decided from a head this instance cached (src/runtime/streamHeads.ts) sends this with
-- its append: the cached event must be the stream's event at that version in the log. Together with
-- the append's version check (nothing after it) the command was decided from the log's head. A head
-- appended in a transaction or savepoint that rolled back, or any other stale head, is refused as a
-- lost race (SV409), and the command is tried again from the log.
CREATE OR REPLACE FUNCTION svc_assert_stream_head(p_stream_id text, p_stream_position bigint, p_event_id uuid) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM events WHERE stream_id = p_stream_id AND stream_position = p_stream_position AND event_id = p_event_id) THEN
    RAISE EXCEPTION 'the cached head of % is not the log''s', p_stream_id USING ERRCODE = 'SV409';
  END IF;
END $$;
