-- A site's email (docs/email.md): layouts, templates with every version, the suppression list, and
-- sends with each recipient's outcome (recipients by keyed hash only).
CREATE TABLE email_layouts (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  name        text NOT NULL,
  html        text NOT NULL,
  version     integer NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX email_layouts_list ON email_layouts (site_id, lower(name), id);
SELECT svc_enable_site_rls('email_layouts');

CREATE TABLE email_templates (
  site_id     text NOT NULL,
  id          uuid NOT NULL,
  key         text NOT NULL,
  subject     text NOT NULL,
  html        text,
  text        text,
  layout_id   uuid,
  category    text NOT NULL CHECK (category IN ('transactional', 'marketing')),
  variables   text[] NOT NULL,
  version     integer NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX email_templates_key ON email_templates (site_id, key);
CREATE INDEX email_templates_layout ON email_templates (site_id, layout_id) WHERE layout_id IS NOT NULL;
CREATE INDEX email_templates_category ON email_templates (site_id, category, key);
SELECT svc_enable_site_rls('email_templates');

-- Every version of every template, kept after the template is deleted (sends name the version they used).
CREATE TABLE email_template_versions (
  site_id      text NOT NULL,
  template_id  uuid NOT NULL,
  version      integer NOT NULL,
  key          text NOT NULL,
  subject      text NOT NULL,
  html         text,
  text         text,
  layout_id    uuid,
  category     text NOT NULL,
  variables    text[] NOT NULL,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (site_id, template_id, version)
);
SELECT svc_enable_site_rls('email_template_versions');

CREATE TABLE email_suppressions (
  site_id     text NOT NULL,
  email_hash  text NOT NULL,
  email       text NOT NULL,
  reason      text NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (site_id, email_hash)
);
CREATE INDEX email_suppressions_list ON email_suppressions (site_id, created_at DESC, email_hash);
SELECT svc_enable_site_rls('email_suppressions');

CREATE TABLE email_sends (
  site_id             text NOT NULL,
  id                  uuid NOT NULL,
  category            text NOT NULL,
  test                boolean NOT NULL,
  template_id         uuid,
  template_key        text,
  template_version    integer,
  status              text NOT NULL CHECK (status IN ('queued', 'completed', 'failed')),
  recipients          integer NOT NULL,
  queued              integer NOT NULL,
  sent                integer NOT NULL DEFAULT 0,
  deferred            integer NOT NULL DEFAULT 0,
  bounced             integer NOT NULL DEFAULT 0,
  failed              integer NOT NULL DEFAULT 0,
  skipped_suppressed  integer NOT NULL,
  skipped_no_consent  integer NOT NULL,
  skipped_restricted  integer NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  completed_at        timestamptz,
  PRIMARY KEY (site_id, id)
);
CREATE INDEX email_sends_list ON email_sends (site_id, created_at DESC, id DESC);
CREATE INDEX email_sends_status ON email_sends (site_id, status, created_at DESC, id DESC);
CREATE INDEX email_sends_category ON email_sends (site_id, category, created_at DESC, id DESC);
SELECT svc_enable_site_rls('email_sends');

CREATE TABLE email_send_recipients (
  site_id         text NOT NULL,
  send_id         uuid NOT NULL,
  recipient_hash  text NOT NULL,
  status          text NOT NULL CHECK (status IN ('queued', 'sent', 'deferred', 'bounced', 'failed')),
  message_id      text,
  response        text,
  attempts        integer NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, send_id, recipient_hash)
);
CREATE INDEX email_send_recipients_status ON email_send_recipients (site_id, send_id, status, recipient_hash);
SELECT svc_enable_site_rls('email_send_recipients');
