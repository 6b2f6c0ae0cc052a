-- A revision's snapshot and delta together often pass PostgreSQL's 2 kB TOAST threshold: compressed
-- with LZ4 instead of pglz, several times faster to write and to read, as are the history rows.
-- Values already stored keep their compression. Servers built without LZ4 keep pglz.
DO $$
BEGIN
  ALTER TABLE item_revisions ALTER COLUMN snapshot SET COMPRESSION lz4, ALTER COLUMN delta SET COMPRESSION lz4;
  ALTER TABLE item_history ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'LZ4 is not available on this server: item history keeps pglz compression';
END $$;
