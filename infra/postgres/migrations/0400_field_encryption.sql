-- Field encryption and erasure (docs/privacy.md).
--
-- The sensitive value store: every value of a pii/phi field, sealed with AES-256-GCM. Events and
-- read models hold a reference (`svc:sealed:<id>`) in the value's place, never the value, so that
-- the log stays immutable while erasure removes personal data: deleting a record's rows here leaves
-- every reference to them, in the log and in every read model, pointing at nothing.
-- Direct mode: `sealed` is sealed with the key-ring key `key_id`, `data_key` is null. Envelope mode:
-- `sealed` is sealed with the value's own data key, stored in `data_key` wrapped by `key_id`.
CREATE TABLE sensitive_values (
  site_id    text        NOT NULL,
  id         uuid        NOT NULL,
  collection text        NOT NULL,
  item_id    text        NOT NULL,
  field      text        NOT NULL,
  key_id     text        NOT NULL,
  data_key   bytea,
  sealed     bytea       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site_id, id)
);
-- Erasure finds a record's values; rewrap finds the values on a retired key; the envelope migration
-- finds the values not yet in the target mode.
CREATE INDEX sensitive_values_record ON sensitive_values (site_id, collection, item_id);
CREATE INDEX sensitive_values_key ON sensitive_values (site_id, key_id, id);
CREATE INDEX sensitive_values_direct ON sensitive_values (site_id, id) WHERE data_key IS NULL;
CREATE INDEX sensitive_values_enveloped ON sensitive_values (site_id, id) WHERE data_key IS NOT NULL;
SELECT svc_enable_site_rls('sensitive_values');

-- Read model of the stream `<siteId>/encryption` (projections/encryptionSettingsProjection.ts).
CREATE TABLE encryption_settings (
  site_id         text        PRIMARY KEY,
  active_key_id   text,
  retired_key_ids text[]      NOT NULL DEFAULT '{}',
  envelope        boolean     NOT NULL DEFAULT false,
  updated_at      timestamptz NOT NULL
);
SELECT svc_enable_site_rls('encryption_settings');

-- Read model of the streams `<siteId>/erasure/<id>` (projections/erasureRequestsProjection.ts). Never the
-- subject: its keyed hash, and the matched records by id.
CREATE TABLE erasure_requests (
  site_id         text        NOT NULL,
  id              uuid        NOT NULL,
  collection      text        NOT NULL,
  subject_hash    text        NOT NULL,
  reason          text        NOT NULL,
  status          text        NOT NULL,
  record_ids      text[]      NOT NULL,
  requested_by    text        NOT NULL,
  requested_at    timestamptz NOT NULL,
  confirmed_by    text,
  confirmed_at    timestamptz,
  executed_by     text,
  executed_at     timestamptz,
  record_count    integer,
  shredded_values integer,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX erasure_requests_time ON erasure_requests (site_id, requested_at DESC, id);
SELECT svc_enable_site_rls('erasure_requests');
