-- The name of a field's expression index: a hash of site, collection, field and kind. Stored in
-- item_field_indexes.index_name (a generated column): never change what it returns.
CREATE OR REPLACE FUNCTION svc_item_field_index_name(p_site text, p_collection text, p_field text, p_kind text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'items_f_' || substr(md5(p_site || '/' || p_collection || '/' || p_field || '/' || p_kind), 1, 24)
$$;
