-- Sites that have events after their last checkpoint and whose last checkpoint (or whose first
-- event read, if they have no checkpoint yet) is no later than p_since. These sites are due for a
-- checkpoint by SVC_CHECKPOINT_INTERVAL. The longest-waiting come first, and the partial index
-- log_checkpoint_heads_due serves the query.
CREATE OR REPLACE FUNCTION svc_checkpoint_due_sites(p_since timestamptz, p_limit integer) RETURNS SETOF text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT site_id FROM log_checkpoint_heads
   WHERE pending_events > 0 AND since <= p_since
   ORDER BY since
   LIMIT p_limit
$$;
REVOKE ALL ON FUNCTION svc_checkpoint_due_sites(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_checkpoint_due_sites(timestamptz, integer) TO svc_app;
