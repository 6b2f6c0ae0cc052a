-- Publishing a release (projection releasesProjection): when it last published and was reverted, and
-- each item's outcome in its last publish with the versions it moved (a revert's record).
ALTER TABLE releases ADD COLUMN published_at timestamptz, ADD COLUMN reverted_at timestamptz;
ALTER TABLE release_items
  ADD COLUMN outcome text,
  ADD COLUMN outcome_reason text,
  ADD COLUMN outcome_message text,
  ADD COLUMN from_version integer,
  ADD COLUMN to_version integer;
