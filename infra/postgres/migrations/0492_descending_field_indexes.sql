-- Existing sites' field indexes get their descending twin (migration 0491): each text or numeric
-- field index wanted today also wants `<kind>:desc`, as the schema projection records it for a field
-- indexed from now on (projections/schemaProjection.ts). The field index builder builds them
-- (CREATE INDEX CONCURRENTLY, after this migration, while writes go on); until then a descending
-- sort on the field is a sort of the matching rows, as an ascending one is before its index is ready.
INSERT INTO item_field_indexes (site_id, collection, field, kind, state)
SELECT site_id, collection, field, kind || ':desc', 'building'
  FROM item_field_indexes
 WHERE state <> 'dropping' AND kind IN ('text', 'numeric')
ON CONFLICT (site_id, collection, field, kind) DO NOTHING;
-- Wakes the builder of a running instance at once (delivered at commit).
SELECT pg_notify('svc_schema', site_id) FROM (SELECT DISTINCT site_id FROM item_field_indexes WHERE kind LIKE '%:desc' AND state = 'building') AS sites;
