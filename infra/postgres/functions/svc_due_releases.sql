-- Scheduled releases of every site whose publishAt has come (by p_now), oldest first, at most
-- p_limit, after the key (p_after_publish_at, p_after_site, p_after_id) when given: the scheduler
-- pages past the releases it leaves waiting for their maintenance window. Definer rights: the
-- scheduler looks across sites, and `releases` has row-level security per site. The range on
-- `releases_due (status, publish_at)` is the only one read, so releases not yet due cost nothing;
-- a due release without items is skipped (a probe of release_items' primary key).
-- PL/pgSQL keeps the plan for the connection (a SQL function with a SET clause is planned on every call).
CREATE OR REPLACE FUNCTION svc_due_releases(p_now timestamptz, p_limit integer, p_after_publish_at timestamptz DEFAULT NULL,
                                            p_after_site text DEFAULT NULL, p_after_id uuid DEFAULT NULL)
RETURNS TABLE (site_id text, id uuid, publish_at timestamptz, maintenance_window jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT r.site_id, r.id, r.publish_at, r.maintenance_window
    FROM releases r
   WHERE r.status = 'scheduled'
     AND r.publish_at <= p_now
     AND r.publish_at >= coalesce(p_after_publish_at, '-infinity'::timestamptz)
     AND (p_after_publish_at IS NULL OR (r.publish_at, r.site_id, r.id) > (p_after_publish_at, p_after_site, p_after_id))
     -- An empty release cannot be published (EMPTY_RELEASE): it waits, scheduled, until it has items.
     AND EXISTS (SELECT 1 FROM release_items i WHERE i.site_id = r.site_id AND i.release_id = r.id)
   ORDER BY r.publish_at, r.site_id, r.id
   LIMIT p_limit;
END $$;
REVOKE ALL ON FUNCTION svc_due_releases(timestamptz, integer, timestamptz, text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_due_releases(timestamptz, integer, timestamptz, text, uuid) TO svc_app;
