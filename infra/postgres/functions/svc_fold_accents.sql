-- Accent folding used on both sides of search (documents and queries): NFC first so that decomposed
-- input folds like precomposed input, then unaccent's rules (Latin and Vietnamese letters, đ → d),
-- then lower case. IMMUTABLE (unaccent itself is only STABLE because its rules file could change)
-- so that it can sit in search_documents' stored tsvector: a new body must give the same result for
-- every input. Text already in NFC skips normalize() (IS NFC NORMALIZED costs a third of it). In a
-- UTF-8 database plain ASCII text, whose byte length equals its character length, only needs
-- lower(): no unaccent rule starts with an ASCII character. In a single-byte encoding that check
-- would hold for accented text too, so there the function has no ASCII shortcut.
DO $$
BEGIN
  IF getdatabaseencoding() = 'UTF8' THEN
    CREATE OR REPLACE FUNCTION svc_fold_accents(input text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fold$
      SELECT CASE
        WHEN octet_length(input) = char_length(input) THEN lower(input)
        ELSE lower(public.unaccent('public.unaccent'::regdictionary,
                                   CASE WHEN input IS NFC NORMALIZED THEN input ELSE normalize(input, NFC) END))
      END
    $fold$;
  ELSE
    -- The body as 0153 wrote it, character for character.
    CREATE OR REPLACE FUNCTION svc_fold_accents(input text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fold$
  SELECT lower(public.unaccent('public.unaccent'::regdictionary,
                               CASE WHEN input IS NFC NORMALIZED THEN input ELSE normalize(input, NFC) END))
$fold$;
  END IF;
END
$$;
