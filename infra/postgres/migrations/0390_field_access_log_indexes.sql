-- GET /admin/field-access-log (docs/privacy.md): its filters by actor and by item id alone, each
-- newest first. By time (field_access_log_time) and by collection or collection and item
-- (field_access_log_item) are served by the indexes of 0100_content.sql.
CREATE INDEX field_access_log_actor ON field_access_log (site_id, user_id, accessed_at DESC);
CREATE INDEX field_access_log_item_id ON field_access_log (site_id, item_id, accessed_at DESC);
