-- The conversion of a field's values when its type changes (field.updated with `typeChange`,
-- docs/content.md "Changing a field's type"): the stored JSON value as the new type stores it when it
-- parses exactly, else NULL. The read models apply it set-based (one UPDATE per table, no item read
-- into the application); the item write path applies its TypeScript twin, convertFieldValue in
-- domain/content/fieldTypeChange.ts, to an item loaded from its stream (test/domain/content/
-- fieldConversionParity.int.spec.ts runs both over one corpus). It depends on the target type only
-- (and, for texts, on the length the field accepts), so applying it twice changes nothing, and a
-- rebuild that folds the same events in the same order writes the same rows. Pure and IMMUTABLE,
-- without exception blocks (a subtransaction per row would cost more than the update itself).
CREATE OR REPLACE FUNCTION svc_convert_field_value(p_value jsonb, p_type text, p_max_length integer DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  kind text := jsonb_typeof(p_value);
  txt text;
  num numeric;
  parts text[];
  y int; m int; d int;
BEGIN
  IF p_value IS NULL OR kind = 'null' THEN
    RETURN p_value;
  END IF;
  -- The value as text: a string's characters, a number's or boolean's JSON text.
  txt := CASE WHEN kind IN ('string', 'number', 'boolean') THEN p_value #>> '{}' END;

  CASE p_type
    WHEN 'json' THEN
      RETURN p_value;

    WHEN 'string', 'text', 'code' THEN
      IF kind IN ('object', 'array') THEN
        txt := p_value::text;
      END IF;
      IF txt IS NULL THEN
        RETURN NULL;
      END IF;
      IF coalesce(p_max_length, CASE WHEN p_type = 'string' THEN 255 END) < char_length(txt) THEN
        RETURN NULL;
      END IF;
      RETURN to_jsonb(txt);

    WHEN 'integer', 'bigInteger' THEN
      IF kind = 'number' THEN
        num := txt::numeric;
      ELSIF kind = 'string' AND btrim(txt) ~ '^[+-]?[0-9]+$' THEN
        num := btrim(txt)::numeric;
      ELSE
        RETURN NULL;
      END IF;
      IF num <> trunc(num) THEN
        RETURN NULL;
      END IF;
      IF p_type = 'integer' THEN
        IF num < -2147483648 OR num > 2147483647 THEN RETURN NULL; END IF;
        RETURN to_jsonb(num::integer);
      END IF;
      IF num < -9223372036854775808 OR num > 9223372036854775807 THEN RETURN NULL; END IF;
      RETURN to_jsonb(num::bigint::text);

    WHEN 'float' THEN
      IF kind = 'number' THEN
        RETURN p_value;
      ELSIF kind = 'string' AND btrim(txt) ~ '^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$' THEN
        num := btrim(txt)::numeric;
        IF abs(num) > 1.7976931348623157e308 THEN RETURN NULL; END IF;
        RETURN to_jsonb(num);
      END IF;
      RETURN NULL;

    WHEN 'decimal' THEN
      IF kind = 'number' THEN
        RETURN to_jsonb(txt::numeric::text);
      ELSIF kind = 'string' AND btrim(txt) ~ '^[+-]?[0-9]+(\.[0-9]+)?$' THEN
        RETURN to_jsonb(btrim(txt)::numeric::text);
      END IF;
      RETURN NULL;

    WHEN 'boolean' THEN
      IF kind = 'boolean' THEN
        RETURN p_value;
      ELSIF kind = 'string' AND lower(btrim(txt)) IN ('true', 'false') THEN
        RETURN to_jsonb(lower(btrim(txt)) = 'true');
      END IF;
      RETURN NULL;

    WHEN 'date' THEN
      IF kind = 'string' AND btrim(txt) ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' THEN
        txt := btrim(txt);
        y := substr(txt, 1, 4)::int; m := substr(txt, 6, 2)::int; d := substr(txt, 9, 2)::int;
        IF y >= 1 AND d <= extract(day FROM make_date(y, m, 1) + interval '1 month - 1 day') THEN
          RETURN to_jsonb(txt);
        END IF;
      END IF;
      RETURN NULL;

    WHEN 'dateTime', 'timestamp' THEN
      -- ISO 8601: a date, or a date and time with an optional offset (UTC when none): stored in UTC
      -- with milliseconds, as a write stores it (domain/content/fieldValues.ts).
      IF kind <> 'string' THEN
        RETURN NULL;
      END IF;
      txt := btrim(txt);
      IF txt !~* '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?)?$' THEN
        RETURN NULL;
      END IF;
      y := substr(txt, 1, 4)::int; m := substr(txt, 6, 2)::int; d := substr(txt, 9, 2)::int;
      IF y < 1 OR d > extract(day FROM make_date(y, m, 1) + interval '1 month - 1 day') THEN
        RETURN NULL;
      END IF;
      -- Milliseconds are kept, finer digits cut (not rounded), as a write does.
      txt := regexp_replace(txt, '(\.[0-9]{3})[0-9]+', '\1');
      IF txt !~* '(Z|[+-][0-9]{2}:?[0-9]{2})$' THEN
        txt := txt || (CASE WHEN length(txt) = 10 THEN 'T00:00:00Z' ELSE 'Z' END);
      END IF;
      RETURN to_jsonb(to_char(txt::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));

    WHEN 'time' THEN
      IF kind = 'string' AND btrim(txt) ~ '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?$' THEN
        txt := btrim(txt);
        RETURN to_jsonb(substr(txt, 1, 5) || ':' || coalesce(nullif(substr(txt, 7, 2), ''), '00'));
      END IF;
      RETURN NULL;

    WHEN 'uuid' THEN
      IF kind = 'string' AND txt ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
        RETURN to_jsonb(lower(txt));
      END IF;
      RETURN NULL;

    WHEN 'slug' THEN
      IF kind = 'string' AND txt ~ '^[a-z0-9]+([-_][a-z0-9]+)*$' AND coalesce(p_max_length, 255) >= char_length(txt) THEN
        RETURN p_value;
      END IF;
      RETURN NULL;

    WHEN 'color' THEN
      IF kind = 'string' AND txt ~* '^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$' THEN
        RETURN to_jsonb(lower(txt));
      END IF;
      RETURN NULL;

    WHEN 'csv' THEN
      IF kind = 'string' THEN
        parts := string_to_array(txt, ',');
      ELSIF kind = 'array' AND NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements(p_value) AS e(v) WHERE jsonb_typeof(e.v) <> 'string' OR position(',' in e.v #>> '{}') > 0) THEN
        parts := ARRAY(SELECT e.v #>> '{}' FROM jsonb_array_elements(p_value) WITH ORDINALITY AS e(v, n) ORDER BY e.n);
      ELSE
        RETURN NULL;
      END IF;
      txt := coalesce((SELECT string_agg(btrim(p.part), ',' ORDER BY p.n) FROM unnest(parts) WITH ORDINALITY AS p(part, n) WHERE btrim(p.part) <> ''), '');
      IF p_max_length < char_length(txt) THEN
        RETURN NULL;
      END IF;
      RETURN to_jsonb(txt);

    WHEN 'geometry' THEN
      IF kind = 'object' AND p_value ->> 'type' IN ('Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon')
         AND jsonb_typeof(p_value -> 'coordinates') = 'array' THEN
        RETURN p_value;
      ELSIF kind = 'object' AND p_value ->> 'type' = 'GeometryCollection' AND jsonb_typeof(p_value -> 'geometries') = 'array' THEN
        RETURN p_value;
      END IF;
      RETURN NULL;

    ELSE
      -- hash and files are never converted (the schema area refuses those changes).
      RETURN NULL;
  END CASE;
END $$;
