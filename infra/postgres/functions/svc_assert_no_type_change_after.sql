-- An item write decided from a cached head (src/modules/items/itemStreams.ts) sends this with its
-- append, under the collection's shared schema lock: a field type change of the collection logged
-- after the item's head would have converted the item's values, which the write did not see. It is
-- refused as a lost race (SV409) and tried again from the log, where the conversion is found.
CREATE OR REPLACE FUNCTION svc_assert_no_type_change_after(p_collection_stream text, p_after bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM events WHERE stream_id = p_collection_stream AND position > p_after AND type = 'field.updated' AND data ? 'typeChange') THEN
    RAISE EXCEPTION 'a type change of % was logged after the cached head', p_collection_stream USING ERRCODE = 'SV409';
  END IF;
END $$;
