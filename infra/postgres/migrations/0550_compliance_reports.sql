-- Compliance reports (docs/compliance-reports.md): each report of a site as it is now, written by
-- projections/complianceReportsProjection.ts from the `report.*` events. The report's file and its
-- signed manifest are objects of the site's storage (`reports/<id>.<json|csv>`, `reports/<id>.manifest.json`).
--
-- What each read uses:
-- * GET /reports/:id, the download and the signature, and the worker: the primary key (site_id, id).
-- * GET /reports (newest first, paged): compliance_reports_list (site_id, created_at DESC, id DESC).
-- * The worker's read of the audit log: the audit_log primary key (site_id, position), in keyset
--   pages between the period's first and last positions, which audit_log_time (site_id, occurred_at
--   DESC, position DESC; migration 0002) finds; the covering checkpoints: log_checkpoints' primary key.
CREATE TABLE compliance_reports (
  site_id          text        NOT NULL,
  id               uuid        NOT NULL,
  status           text        NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  params           jsonb       NOT NULL,
  requested_by     jsonb       NOT NULL,
  attempts         integer     NOT NULL DEFAULT 0,
  progress_entries integer     NOT NULL DEFAULT 0,
  progress_total   integer,
  entries          integer,
  bytes            bigint,
  sha256           text,
  first_position   bigint,
  last_position    bigint,
  valid            boolean,
  problems         integer,
  signature        text,
  key_id           text,
  error            text,
  created_at       timestamptz NOT NULL,
  started_at       timestamptz,
  completed_at     timestamptz,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX compliance_reports_list ON compliance_reports (site_id, created_at DESC, id DESC);
SELECT svc_enable_site_rls('compliance_reports');
