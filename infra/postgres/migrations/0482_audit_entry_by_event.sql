-- GET /audit/:eventId reads one entry of the site by its event id (src/modules/audit/queries.ts,
-- findAuditEntry): without this index it read the site's whole log.
CREATE INDEX audit_log_event ON audit_log (site_id, event_id);
