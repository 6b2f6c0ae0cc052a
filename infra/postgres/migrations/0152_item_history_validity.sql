-- item_history gets its validity range as a stored column, so that "valid at t" (`validity @> t`)
-- is a plain leakproof operator on a column and can be an index condition under row-level security
-- (an expression `tstzrange(valid_from, valid_to) @> t` cannot: the range constructor may raise).
ALTER TABLE item_history ADD COLUMN validity tstzrange GENERATED ALWAYS AS (tstzrange(valid_from, valid_to, '[)')) STORED;

DROP INDEX item_history_as_of;
CREATE INDEX item_history_as_of ON item_history USING gist (site_id, collection, validity);

CREATE OR REPLACE VIEW items_as_of WITH (security_invoker = true) AS
  SELECT site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at,
         version, data, valid_from, valid_to
    FROM item_history
   WHERE validity @> NULLIF(current_setting('svc.as_of', true), '')::timestamptz;
