-- A site's configuration (site.configured events; `name`, `domain` and `default_language` were there
-- already) and its key/value settings (setting.set / setting.removed events).
ALTER TABLE sites
  ADD COLUMN display_title       text,
  ADD COLUMN site_url            text,
  ADD COLUMN descriptor          text,
  ADD COLUMN default_appearance  text NOT NULL DEFAULT 'auto',
  ADD COLUMN default_save_action text NOT NULL DEFAULT 'stay',
  ADD COLUMN branding            jsonb NOT NULL DEFAULT '{"logoUrl": null, "faviconUrl": null, "brandColor": null}',
  ADD COLUMN theme_overrides     jsonb NOT NULL DEFAULT '{"light": {}, "dark": {}}',
  ADD COLUMN custom_css          text;

-- One row per key a site has set; the defaults of known keys are not stored. Who changed a setting
-- and when is in the log and the audit list (setting.set / setting.removed).
CREATE TABLE settings (
  site_id     text NOT NULL,
  key         text NOT NULL,
  value       jsonb NOT NULL,
  PRIMARY KEY (site_id, key)
);
SELECT svc_enable_site_rls('settings');
