-- Most text arrives in NFC already: PostgreSQL's IS NFC NORMALIZED quick check costs about a third
-- of normalize() on such text, so normalize only what fails it. Same result for every input, so the
-- stored search documents stay valid.
CREATE OR REPLACE FUNCTION svc_fold_accents(input text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT lower(public.unaccent('public.unaccent'::regdictionary,
                               CASE WHEN input IS NFC NORMALIZED THEN input ELSE normalize(input, NFC) END))
$$;
