-- Exact live-item counts per (site, collection, status) for list totals (`meta=total_count`, the
-- default): counting a million matching rows per request took seconds. Triggers on `items` append
-- the change of each statement (one row per collection and status it touched, none when nothing
-- changed), so writers never wait on a shared counter row; the scheduler folds the rows of each
-- (site, collection, status) into one (svc_compact_item_counts). A total is the sum of the rows of
-- its key. Emptying `items` (a rebuild of the items read model) empties this table too, and the
-- replay refills it.
CREATE TABLE item_count_deltas (
  site_id     text NOT NULL,
  collection  text NOT NULL,
  status      text,
  live        bigint NOT NULL
);
CREATE INDEX item_count_deltas_key ON item_count_deltas (site_id, collection, status);
SELECT svc_enable_site_rls('item_count_deltas');

CREATE OR REPLACE FUNCTION svc_item_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT site_id, collection, status, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION svc_item_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT site_id, collection, status, sum(change) FROM (
    SELECT site_id, collection, status, -1 AS change FROM old_rows WHERE deleted_at IS NULL
    UNION ALL
    SELECT site_id, collection, status, 1 FROM new_rows WHERE deleted_at IS NULL
  ) changes
  GROUP BY 1, 2, 3 HAVING sum(change) <> 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION svc_item_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO item_count_deltas (site_id, collection, status, live)
  SELECT site_id, collection, status, -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;

-- Only the owner truncates `items` (rebuilds): the counts go with it.
CREATE OR REPLACE FUNCTION svc_item_counts_after_truncate() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE item_count_deltas;
  RETURN NULL;
END $$;

CREATE TRIGGER items_count_insert AFTER INSERT ON items REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_item_counts_after_insert();
CREATE TRIGGER items_count_update AFTER UPDATE ON items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_item_counts_after_update();
CREATE TRIGGER items_count_delete AFTER DELETE ON items REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_item_counts_after_delete();
CREATE TRIGGER items_count_truncate AFTER TRUNCATE ON items
  FOR EACH STATEMENT EXECUTE FUNCTION svc_item_counts_after_truncate();

-- Folds each key's rows into one (rows appended meanwhile stay for the next run: the DELETE only
-- takes the rows its snapshot sees). Keys whose sum is 0 leave no row.
CREATE OR REPLACE FUNCTION svc_compact_item_counts() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  folded integer;
BEGIN
  WITH moved AS (
    DELETE FROM item_count_deltas RETURNING site_id, collection, status, live
  ), kept AS (
    INSERT INTO item_count_deltas (site_id, collection, status, live)
    SELECT site_id, collection, status, sum(live) FROM moved GROUP BY 1, 2, 3 HAVING sum(live) <> 0
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM moved) - (SELECT count(*) FROM kept) INTO folded;
  RETURN folded;
END $$;
REVOKE ALL ON FUNCTION svc_compact_item_counts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_compact_item_counts() TO svc_app;

-- The items already there.
INSERT INTO item_count_deltas (site_id, collection, status, live)
SELECT site_id, collection, status, count(*) FROM items WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
