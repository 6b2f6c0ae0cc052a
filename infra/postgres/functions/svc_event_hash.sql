-- The hash of one event: its content and its link to the previous event of the same stream.
-- STABLE, as its body is (concat_ws, the timestamptz extract), so that PostgreSQL inlines it into the
-- appending INSERT.
CREATE OR REPLACE FUNCTION svc_event_hash(
  prev_hash text, site_id text, stream_id text, stream_position bigint, event_id uuid,
  type text, schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz
) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(concat_ws(E'\x1f',
    coalesce(prev_hash, ''), site_id, stream_id, stream_position::text, event_id::text, type,
    schema_version::text, data::text, metadata::text,
    (extract(epoch FROM recorded_at) * 1000000)::bigint::text), 'UTF8')), 'hex')
$$;
