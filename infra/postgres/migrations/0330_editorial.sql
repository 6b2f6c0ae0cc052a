-- Editorial review: one row per reviewed item (projection editorialProjection), listed by status and
-- by assignee (GET /editorial/reviews).
CREATE TABLE editorial_reviews (
  site_id          text NOT NULL,
  collection       text NOT NULL,
  item_id          text NOT NULL,
  status           text NOT NULL,
  reviewer_id      text,
  author_id        text,
  submitted_by     text,
  submitted_version integer,
  approved_version integer,
  last_reason      text,
  last_actor_id    text,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (site_id, collection, item_id)
);
CREATE INDEX editorial_reviews_status ON editorial_reviews (site_id, status, updated_at DESC, collection, item_id);
CREATE INDEX editorial_reviews_assignee ON editorial_reviews (site_id, reviewer_id, status, updated_at DESC);
SELECT svc_enable_site_rls('editorial_reviews');
