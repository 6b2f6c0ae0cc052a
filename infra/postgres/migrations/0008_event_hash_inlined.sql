-- svc_event_hash was declared IMMUTABLE over a body that calls STABLE functions (concat_ws, the
-- timestamptz extract), so PostgreSQL would not inline it: every appended event paid a SQL function
-- call, and every append statement a plan of its body. It is what its body is, STABLE, and now
-- inlined into the appending INSERT. The hash it computes is unchanged.
ALTER FUNCTION svc_event_hash(text, text, text, bigint, uuid, text, integer, jsonb, jsonb, timestamptz) STABLE;

-- Event payloads of items (snapshot and changes) pass PostgreSQL's 2 kB TOAST threshold and were
-- compressed with pglz, the slowest part of a bulk append after hashing. LZ4 compresses several
-- times faster; values already stored keep their compression. Servers built without LZ4 keep pglz.
DO $$
BEGIN
  ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4, ALTER COLUMN metadata SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'LZ4 is not available on this server: events keep pglz compression';
END $$;
