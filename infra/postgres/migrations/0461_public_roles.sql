-- Every site has its public role from its creation on (src/modules/instance/handlers.ts); before,
-- it was made by a site's first GET /roles. A site that never had that call gets it here, as the
-- roles command makes it (createPublicRole, src/modules/roles/handlers.ts): a `role.created` event
-- on the role's new stream, appended by svc_append (version check, hash chain), and the rows its
-- inline projections write for it (roles; access_versions, which policies keeps), so that a
-- rebuild gives the same rows. The id is name-based, as systemRoleId's (src/auth/deterministicId.ts:
-- the first 16 bytes of SHA-256 of "<site>/role/public", version 8). A re-run finds nothing to do.
DO $$
DECLARE
  site record;
  id_bytes bytea;
  role_id uuid;
  appended record;
BEGIN
  FOR site IN
    SELECT s.id FROM sites s
     WHERE s.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM roles r WHERE r.site_id = s.id AND r.system_key = 'public')
     ORDER BY s.id
  LOOP
    PERFORM set_config('svc.site_id', site.id, true);
    id_bytes := substring(sha256(convert_to(site.id || '/role/public', 'UTF8')) FROM 1 FOR 16);
    id_bytes := set_byte(id_bytes, 6, (get_byte(id_bytes, 6) & 15) | 128);
    id_bytes := set_byte(id_bytes, 8, (get_byte(id_bytes, 8) & 63) | 128);
    role_id := encode(id_bytes, 'hex')::uuid;
    SELECT a.global_position, a.recorded_at INTO appended
      FROM svc_append(site.id, site.id || '/role/' || role_id::text, 0, jsonb_build_array(jsonb_build_object(
        'eventId', gen_random_uuid(),
        'type', 'role.created',
        'schemaVersion', 1,
        'data', jsonb_build_object('roleId', role_id::text, 'name', 'Public', 'admin', false, 'parentId', NULL, 'systemKey', 'public'),
        'metadata', jsonb_build_object('actor', jsonb_build_object('kind', 'system', 'id', 'migration-0461'))))) AS a;
    INSERT INTO roles (site_id, id, name, description, admin, parent_id, system_key, created_at, updated_at)
    VALUES (site.id, role_id, 'Public', NULL, false, NULL, 'public', appended.recorded_at, appended.recorded_at);
    INSERT INTO access_versions (site_id, version) VALUES (site.id, appended.global_position)
    ON CONFLICT (site_id) DO UPDATE SET version = GREATEST(access_versions.version, excluded.version);
  END LOOP;
  PERFORM set_config('svc.site_id', '', true);
END $$;
