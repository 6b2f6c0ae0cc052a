-- Active subscriptions of a sink kind (nats) with feed entries past their cursor (of one site, or of
-- all), and when they are due: svc_cdc_due_webhooks for the sink reactor (src/modules/cdc/
-- sinkReactor.ts) and its state table. Definer rights: the reactor looks across sites like the log
-- reader does.
CREATE OR REPLACE FUNCTION svc_cdc_due_sinks(p_kind text, p_site text)
RETURNS TABLE (site_id text, subscription_id uuid, due_at timestamptz, dispatch boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN QUERY
  SELECT c.site_id, c.id, CASE WHEN c.dispatch THEN now() ELSE coalesce(c.next_attempt_at, now()) END, c.dispatch
    FROM (
      SELECT s.site_id, s.id, w.next_attempt_at,
             coalesce(s.dispatch_requested_at > coalesce(w.dispatch_seen_at, '-infinity'::timestamptz), false) AS dispatch,
             CASE WHEN w.generation IS NOT DISTINCT FROM s.replay_generation THEN w.delivered_seq ELSE s.cursor_seq END AS cursor_seq,
             coalesce(f.last_seq, 0) AS last_seq
        FROM cdc_subscriptions s
        LEFT JOIN cdc_feed_sites f ON f.site_id = s.site_id
        LEFT JOIN cdc_sink_state w ON w.site_id = s.site_id AND w.subscription_id = s.id
       WHERE s.kind = p_kind AND s.state = 'active' AND (p_site IS NULL OR s.site_id = p_site)
    ) c
   WHERE c.dispatch OR c.cursor_seq < c.last_seq;
END $$;
