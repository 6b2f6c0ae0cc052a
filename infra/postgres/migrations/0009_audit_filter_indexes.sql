-- Every filter of the audit list (src/modules/audit/queries.ts, AUDIT_FIELDS) has an index.
-- requestId and actorKind had none: a filter on them read every entry of the site.
-- action and target are indexed with text_pattern_ops instead of the default operator class: the
-- index still serves `_eq` and `_in`, and now `_starts_with` too, which the query language compiles
-- to a byte range (`~>=~`, `~<~`) beside its LIKE. Under row-level security PostgreSQL makes index
-- conditions of leakproof operators only; those two are, LIKE is not.
CREATE INDEX audit_log_request ON audit_log (site_id, request_id, position DESC);
CREATE INDEX audit_log_actor_kind ON audit_log (site_id, actor_kind, position DESC);
CREATE INDEX audit_log_action_prefix ON audit_log (site_id, action text_pattern_ops, position DESC);
DROP INDEX audit_log_action;
CREATE INDEX audit_log_target_prefix ON audit_log (site_id, target text_pattern_ops, position DESC);
DROP INDEX audit_log_target;
