-- One step of a site's log head hash: head_k = sha256(head_{k-1} US position US event hash), in hex,
-- where US is the unit separator (0x1f) and the first head is ''. This is the SQL twin of
-- nextHeadHash in src/modules/audit/checkpointFold.ts (a test checks that the two agree).
-- It is STABLE because concat_ws is, as in svc_event_hash.
CREATE OR REPLACE FUNCTION svc_checkpoint_next_head(p_head text, p_position bigint, p_hash text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(concat_ws(E'\x1f', p_head, p_position::text, p_hash), 'UTF8')), 'hex')
$$;
