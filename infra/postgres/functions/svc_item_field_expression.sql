-- The SQL expression of a content field of `items`, exactly what the query compiler writes for it
-- (src/query/fieldExpressions.ts), so that filters and sorts use the field's expression index.
CREATE OR REPLACE FUNCTION svc_item_field_expression(p_field text, p_kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_field !~ '^[A-Za-z0-9_]+$' THEN
    RAISE EXCEPTION 'invalid field name %', p_field;
  END IF;
  RETURN CASE p_kind
    WHEN 'text' THEN format('(data ->> %L)', p_field)
    WHEN 'numeric' THEN format('((data ->> %L)::numeric)', p_field)
    WHEN 'boolean' THEN format('((data ->> %L)::boolean)', p_field)
    WHEN 'json' THEN format('(data -> %L)', p_field)
  END;
END $$;
