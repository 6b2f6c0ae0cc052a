-- Change-feed entries stop keeping a copy of what the log already holds (issue #16). An item's
-- snapshot (and a field's definition) is a part of its source event's data as it is: the entry's
-- envelope now says null there, `snapshot_key` names that part of `events.data`, and readers put it
-- back from the event row joined by position (src/modules/cdc/feedEnvelope.ts). Entries whose data
-- is built from the event (collections, relations) or null keep their envelope as it was.
--
-- Existing entries are converted here, into a table written anew: converting them in place would
-- leave a dead copy of every row behind until a VACUUM FULL, the opposite of the point. A rebuild
-- of the projection would give the same rows only where retention removed nothing, so the rows are
-- converted, not replayed.

CREATE TABLE cdc_feed_converted (
  site_id      text NOT NULL,
  seq          bigint NOT NULL,
  position     bigint NOT NULL,
  event_id     uuid NOT NULL,
  type         text NOT NULL,
  collection   text,
  item_id      text,
  occurred_at  timestamptz NOT NULL,
  envelope     text NOT NULL,
  -- The key of the source event's data that holds the entry's snapshot; NULL: the envelope holds it.
  snapshot_key text
);

-- An entry leaves its snapshot to the log only when the event holds the same value under the key
-- its type reads (feedEntryOf), and when the snapshot's text is found in its place in the envelope,
-- so that everything else in the text stays as it was.
INSERT INTO cdc_feed_converted (site_id, seq, position, event_id, type, collection, item_id, occurred_at, envelope, snapshot_key)
SELECT f.site_id, f.seq, f.position, f.event_id, f.type, f.collection, f.item_id, f.occurred_at,
       coalesce(logged.envelope, f.envelope), logged.key
  FROM cdc_feed f
  LEFT JOIN LATERAL (
    SELECT part.key, emptied.envelope
      FROM (SELECT CASE WHEN f.type LIKE 'items.%' THEN 'snapshot'
                        WHEN f.type IN ('fields.create', 'fields.update') THEN 'field' END AS key,
                   (f.envelope::json) -> 'snapshot' AS stored) part
      JOIN events e ON e.position = f.position
     CROSS JOIN LATERAL (
       SELECT replace(f.envelope, '"snapshot" : ' || part.stored::text || ', "changedKeys" : ', '"snapshot" : null, "changedKeys" : ') AS envelope
     ) emptied
     WHERE part.key IS NOT NULL
       AND jsonb_typeof(e.data -> part.key) = 'object'
       AND part.stored::jsonb = e.data -> part.key
       AND emptied.envelope <> f.envelope
  ) logged ON true
 ORDER BY f.site_id, f.seq;

DROP TABLE cdc_feed;
ALTER TABLE cdc_feed_converted RENAME TO cdc_feed;
ALTER TABLE cdc_feed ADD PRIMARY KEY (site_id, seq);
CREATE INDEX cdc_feed_collection ON cdc_feed (site_id, collection, seq);
CREATE INDEX cdc_feed_time ON cdc_feed (site_id, occurred_at, seq);
SELECT svc_enable_site_rls('cdc_feed');
-- A table written anew has no statistics yet: pages must plan as index range reads at once.
ANALYZE cdc_feed;
