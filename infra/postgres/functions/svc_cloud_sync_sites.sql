-- The sites with cloud-sync pipelines, each with whether one of its pipelines has feed entries to
-- push and may try now (p_now): the sync reactor's sweep, across sites.
CREATE OR REPLACE FUNCTION svc_cloud_sync_sites(p_now timestamptz)
RETURNS TABLE (site_id text, due boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT p.site_id,
         bool_or(coalesce(s.synced_seq, p.start_seq) < coalesce(f.last_seq, 0)
                 AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= p_now))
    FROM cloud_sync_pipelines p
    LEFT JOIN cloud_sync_state s ON s.site_id = p.site_id AND s.pipeline_id = p.id
    LEFT JOIN cdc_feed_sites f ON f.site_id = p.site_id
   GROUP BY p.site_id;
END $$;
REVOKE ALL ON FUNCTION svc_cloud_sync_sites(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_cloud_sync_sites(timestamptz) TO svc_app;
