-- The statement that builds one field index, CONCURRENTLY (outside a transaction): run by the field
-- index builder on an owner connection (src/runtime), never by the application role.
CREATE OR REPLACE FUNCTION svc_item_field_index_statement(p_site text, p_collection text, p_field text, p_kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  expression text := svc_item_field_expression(p_field, p_kind);
BEGIN
  IF expression IS NULL THEN
    RAISE EXCEPTION 'unknown field kind %', p_kind;
  END IF;
  RETURN format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON public.items (%s) WHERE site_id = %L AND collection = %L AND deleted_at IS NULL',
                svc_item_field_index_name(p_site, p_collection, p_field, p_kind), expression, p_site, p_collection);
END $$;
REVOKE ALL ON FUNCTION svc_item_field_index_statement(text, text, text, text) FROM PUBLIC;
