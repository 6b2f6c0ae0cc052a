-- The last position of the global log below the readers' horizon (see svc_read_all).
CREATE OR REPLACE FUNCTION svc_log_head() RETURNS TABLE (tx_id xid8, global_position bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT tx_id, position FROM events
   WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY tx_id DESC, position DESC LIMIT 1
$$;
