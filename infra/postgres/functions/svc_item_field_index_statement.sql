-- The statement that builds one field index, CONCURRENTLY (outside a transaction): run by the field
-- index builder on an owner connection (src/runtime), never by the application role.
-- `p_kind` is the field's value kind (text, numeric, boolean, json), alone or with `:desc`. The plain
-- kind is the default btree order, ASC NULLS LAST: walked forward it serves `sort=field`, backward
-- `sort=-field&nulls=first`. `<kind>:desc` is DESC NULLS LAST: forward it serves `sort=-field` (nulls
-- last, the default), backward `sort=field&nulls=first` (src/query/compileSort.ts).
CREATE OR REPLACE FUNCTION svc_item_field_index_statement(p_site text, p_collection text, p_field text, p_kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  expression text := svc_item_field_expression(p_field, split_part(p_kind, ':', 1));
  direction text := CASE split_part(p_kind, ':', 2) WHEN '' THEN '' WHEN 'desc' THEN ' DESC NULLS LAST' END;
BEGIN
  IF expression IS NULL OR direction IS NULL OR p_kind LIKE '%:%:%' THEN
    RAISE EXCEPTION 'unknown field kind %', p_kind;
  END IF;
  RETURN format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON public.items (%s%s) WHERE site_id = %L AND collection = %L AND deleted_at IS NULL',
                svc_item_field_index_name(p_site, p_collection, p_field, p_kind), expression, direction, p_site, p_collection);
END $$;
REVOKE ALL ON FUNCTION svc_item_field_index_statement(text, text, text, text) FROM PUBLIC;
