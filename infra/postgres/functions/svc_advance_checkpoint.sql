-- Moves an async projection's checkpoint from where its step read to where the step ends, sent
-- first in the step's transaction: it takes the checkpoint row (creating it for a projection's
-- first step, so a concurrent first step or a rebuild waits on it), and fails with SV412 if the
-- checkpoint is no longer where the step read it (a rebuild moved it): the whole transaction, writes
-- included, then rolls back.
CREATE OR REPLACE FUNCTION svc_advance_checkpoint(p_name text, p_from_tx xid8, p_from_position bigint,
                                                  p_to_tx xid8, p_to_position bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  current_tx xid8;
  current_position bigint;
BEGIN
  INSERT INTO projection_checkpoints (name) VALUES (p_name) ON CONFLICT (name) DO NOTHING;
  SELECT c.tx_id, c.position INTO current_tx, current_position
    FROM projection_checkpoints c WHERE c.name = p_name FOR UPDATE;
  IF current_tx <> p_from_tx OR current_position <> p_from_position THEN
    RAISE EXCEPTION 'checkpoint of % moved', p_name USING ERRCODE = 'SV412';
  END IF;
  UPDATE projection_checkpoints SET tx_id = p_to_tx, position = p_to_position, updated_at = now() WHERE name = p_name;
END $$;
