-- The event store: one append-only log of every change, per-stream hash chains, gap-safe global reads.

DO $$
BEGIN
  CREATE ROLE svc_app NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'svc_app', 'MEMBER') THEN
    EXECUTE format('GRANT svc_app TO %I', current_user);
  END IF;
END $$;

-- Every site-scoped table: forced row-level security keyed on the transaction's `svc.site_id`
-- for the application role; the owner (migrations, rebuilds, the log reader) sees everything.
CREATE OR REPLACE FUNCTION svc_enable_site_rls(target regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', target);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', target);
  EXECUTE format('DROP POLICY IF EXISTS site_isolation ON %s', target);
  EXECUTE format($p$CREATE POLICY site_isolation ON %s TO svc_app
    USING (site_id = current_setting('svc.site_id', true))
    WITH CHECK (site_id = current_setting('svc.site_id', true))$p$, target);
  EXECUTE format('DROP POLICY IF EXISTS owner_access ON %s', target);
  EXECUTE format('CREATE POLICY owner_access ON %s TO %I USING (true) WITH CHECK (true)', target, current_user);
END $$;

CREATE TABLE events (
  position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
  site_id         text NOT NULL,
  stream_id       text NOT NULL,
  stream_position bigint NOT NULL,
  event_id        uuid NOT NULL UNIQUE,
  type            text NOT NULL,
  schema_version  integer NOT NULL DEFAULT 1,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  prev_hash       text,
  hash            text NOT NULL,
  CONSTRAINT events_stream_position_unique UNIQUE (stream_id, stream_position)
);
CREATE INDEX events_global_order ON events (tx_id, position);
CREATE INDEX events_site_order ON events (site_id, position);
CREATE INDEX events_site_type ON events (site_id, type, position);
SELECT svc_enable_site_rls('events');

-- The hash of one event: its content and its link to the previous event of the same stream.
CREATE OR REPLACE FUNCTION svc_event_hash(
  prev_hash text, site_id text, stream_id text, stream_position bigint, event_id uuid,
  type text, schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(concat_ws(E'\x1f',
    coalesce(prev_hash, ''), site_id, stream_id, stream_position::text, event_id::text, type,
    schema_version::text, data::text, metadata::text,
    (extract(epoch FROM recorded_at) * 1000000)::bigint::text), 'UTF8')), 'hex')
$$;

-- Appends events to one stream. p_expected: NULL = any version, 0 = the stream must not exist,
-- n = the stream's last position must be n. Re-appending the same event ids is a no-op.
CREATE OR REPLACE FUNCTION svc_append(p_site text, p_stream text, p_expected bigint, p_events jsonb)
RETURNS TABLE (global_position bigint, stream_position bigint, duplicate boolean)
LANGUAGE plpgsql AS $$
DECLARE
  last_position bigint;
  last_hash text;
  existing integer;
  event jsonb;
  now_at timestamptz := clock_timestamp();
  new_hash text;
  inserted bigint;
BEGIN
  SELECT count(*) INTO existing FROM events e
   WHERE e.event_id IN (SELECT (value->>'eventId')::uuid FROM jsonb_array_elements(p_events));
  IF existing = jsonb_array_length(p_events) THEN
    RETURN QUERY SELECT e.position, e.stream_position, true FROM events e
      WHERE e.event_id IN (SELECT (value->>'eventId')::uuid FROM jsonb_array_elements(p_events))
      ORDER BY e.position;
    RETURN;
  ELSIF existing > 0 THEN
    RAISE EXCEPTION 'some of these event ids were already appended' USING ERRCODE = 'SV409';
  END IF;

  SELECT e.stream_position, e.hash INTO last_position, last_hash
    FROM events e WHERE e.stream_id = p_stream ORDER BY e.stream_position DESC LIMIT 1;
  last_position := coalesce(last_position, 0);
  IF p_expected IS NOT NULL AND p_expected <> last_position THEN
    RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, last_position, p_expected
      USING ERRCODE = 'SV409';
  END IF;

  FOR event IN SELECT value FROM jsonb_array_elements(p_events) LOOP
    last_position := last_position + 1;
    new_hash := svc_event_hash(last_hash, p_site, p_stream, last_position, (event->>'eventId')::uuid,
      event->>'type', (event->>'schemaVersion')::integer, event->'data', event->'metadata', now_at);
    INSERT INTO events (site_id, stream_id, stream_position, event_id, type, schema_version, data,
                        metadata, recorded_at, prev_hash, hash)
    VALUES (p_site, p_stream, last_position, (event->>'eventId')::uuid, event->>'type',
            (event->>'schemaVersion')::integer, event->'data', event->'metadata', now_at, last_hash, new_hash)
    RETURNING position INTO inserted;
    last_hash := new_hash;
    global_position := inserted;
    stream_position := last_position;
    duplicate := false;
    RETURN NEXT;
  END LOOP;
  PERFORM pg_notify('svc_events', p_site);
END $$;

-- The global log in a stable order, for every site: only transactions that can no longer commit
-- below the reader's horizon are returned, so a slow writer never makes a reader skip an event.
CREATE OR REPLACE FUNCTION svc_read_all(p_after_tx xid8, p_after_position bigint, p_limit integer)
RETURNS SETOF events LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT * FROM events
   WHERE (tx_id, position) > (p_after_tx, p_after_position)
     AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY tx_id, position
   LIMIT p_limit
$$;

CREATE OR REPLACE FUNCTION svc_log_head() RETURNS TABLE (tx_id xid8, global_position bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT tx_id, position FROM events
   WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY tx_id DESC, position DESC LIMIT 1
$$;

CREATE TABLE projection_checkpoints (
  name        text PRIMARY KEY,
  tx_id       xid8 NOT NULL DEFAULT '0',
  position    bigint NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Sites are instance-level: the tenant registry itself (no row-level security).
CREATE TABLE sites (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  domain      text UNIQUE,
  default_language text NOT NULL DEFAULT 'en',
  created_at  timestamptz NOT NULL,
  deleted_at  timestamptz
);
