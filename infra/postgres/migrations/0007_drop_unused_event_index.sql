-- events_site_type (site_id, type, position) serves no query: reads go by stream, by the global
-- order or by site and position. Each append paid for one more index entry; drop it.
DROP INDEX IF EXISTS events_site_type;
