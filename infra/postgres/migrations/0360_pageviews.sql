-- Pageview counters (src/modules/pageviews, docs/delivery.md). High-volume telemetry, not
-- facts of the content: no event describes a page view, so these tables are not read models and no
-- rebuild refills them. Their one writer is the pageview flush (src/modules/pageviews/pageviewCounts.ts).

-- Views and unique visitors per site, UTC day and path; path '' holds the whole site's day (its
-- uniques are visitors of any page, not a sum over paths). The stats route reads it by primary key.
CREATE TABLE pageview_daily (
  site_id text   NOT NULL,
  day     date   NOT NULL,
  path    text   NOT NULL,
  views   bigint NOT NULL DEFAULT 0,
  uniques bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, path)
);
SELECT svc_enable_site_rls('pageview_daily');

-- The visitors already counted per site, day and path, so that each counts once however many
-- flushes see them. visitor_hash is a keyed hash (16 bytes) of the site, the client IP and its
-- user agent under a salt of that UTC day: it changes every day and is deleted after a few days.
CREATE TABLE pageview_uniques (
  site_id      text  NOT NULL,
  day          date  NOT NULL,
  path         text  NOT NULL,
  visitor_hash bytea NOT NULL,
  PRIMARY KEY (site_id, day, path, visitor_hash)
);
SELECT svc_enable_site_rls('pageview_uniques');

-- The Redis batches already written (one row per site, day and batch): a flush that crashed after
-- its commit and before it deleted the batch from Redis is not counted twice when retried.
CREATE TABLE pageview_flushes (
  site_id    text        NOT NULL,
  batch_id   uuid        NOT NULL,
  day        date        NOT NULL,
  flushed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site_id, batch_id, day)
);
CREATE INDEX pageview_flushes_age ON pageview_flushes (site_id, flushed_at);
SELECT svc_enable_site_rls('pageview_flushes');
