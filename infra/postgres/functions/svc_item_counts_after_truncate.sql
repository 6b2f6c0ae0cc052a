-- Only the owner truncates `items` (rebuilds): the counts go with it.
CREATE OR REPLACE FUNCTION svc_item_counts_after_truncate() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  TRUNCATE item_count_deltas;
  RETURN NULL;
END $$;
