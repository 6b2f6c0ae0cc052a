-- Item content that passes PostgreSQL's 2 kB TOAST threshold (long bodies) is compressed with LZ4
-- instead of pglz: several times faster to write and to read. Values already stored keep their
-- compression. Servers built without LZ4 keep pglz.
DO $$
BEGIN
  ALTER TABLE items ALTER COLUMN data SET COMPRESSION lz4;
  ALTER TABLE item_drafts ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'LZ4 is not available on this server: item content keeps pglz compression';
END $$;
