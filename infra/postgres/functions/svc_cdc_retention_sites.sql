-- Sites with something past retention (feed entries, delivery attempts, expired realtime tickets):
-- the scheduler's retention run visits only these.
CREATE OR REPLACE FUNCTION svc_cdc_retention_sites(p_cutoff timestamptz, p_ticket_cutoff timestamptz)
RETURNS SETOF text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT f.site_id FROM cdc_feed_sites f
   WHERE EXISTS (SELECT 1 FROM cdc_feed e WHERE e.site_id = f.site_id AND e.occurred_at < p_cutoff)
  UNION
  SELECT DISTINCT site_id FROM cdc_deliveries WHERE attempted_at < p_cutoff
  UNION
  SELECT DISTINCT site_id FROM realtime_tickets WHERE expires_at < p_ticket_cutoff
$$;
