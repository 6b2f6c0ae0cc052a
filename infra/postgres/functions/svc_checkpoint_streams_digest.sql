-- The digest of a checkpoint's stream heads, which its payload signs (streamsDigest). It is the
-- SHA-256, in hex, of one line per stream the checkpoint touched, `stream_id US stream_position US
-- hash`, with the lines joined by '\n' and ordered by the bytes of the stream ids. `touched` is the
-- number of lines. The checkpoint task calls it when it signs, and verify calls it when it checks.
-- It runs as the caller, so row-level security keeps it to the transaction's site.
CREATE OR REPLACE FUNCTION svc_checkpoint_streams_digest(p_site text, p_seq bigint)
RETURNS TABLE (touched integer, digest text) LANGUAGE sql STABLE AS $$
  SELECT count(*)::integer,
         encode(sha256(convert_to(coalesce(string_agg(concat_ws(E'\x1f', s.stream_id, s.stream_position::text, s.hash), E'\n'
                                                      ORDER BY s.stream_id COLLATE "C"), ''), 'UTF8')), 'hex')
    FROM log_checkpoint_streams s
   WHERE s.site_id = p_site AND s.seq = p_seq
$$;
