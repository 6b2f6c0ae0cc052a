// A site's constitution (docs/agents.md "Constitution"): its draft with the rules of its last
// successful compile, and every activated version (the active one is the highest).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentConstitutionProjection = defineProjection({
  name: 'agentConstitution',
  mode: 'inline',
  tables: ['agent_constitution_drafts', 'agent_constitution_versions'],
  handlers: {
    'agent_constitution.draft_saved': async (tx, event) => {
      await tx.query(sql`
        INSERT INTO agent_constitution_drafts (site_id, text, revision, updated_by, updated_at)
        VALUES (${event.siteId}, ${event.data.text}, ${event.data.revision}, ${event.metadata.actor.id}, ${event.recordedAt})
        ON CONFLICT (site_id) DO UPDATE SET text = EXCLUDED.text, revision = EXCLUDED.revision, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`);
    },
    'agent_constitution.compiled': async (tx, event) => {
      await tx.query(sql`
        UPDATE agent_constitution_drafts SET rules = ${JSON.stringify(event.data.rules)}::jsonb, compiled_revision = ${event.data.revision}, compiled_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId}`);
    },
    'agent_constitution.activated': async (tx, event) => {
      const { version, revision, text, rules } = event.data;
      await tx.query(sql`
        INSERT INTO agent_constitution_versions (site_id, version, text, rules, draft_revision, activated_by, activated_at)
        VALUES (${event.siteId}, ${version}, ${text}, ${JSON.stringify(rules)}::jsonb, ${revision}, ${event.metadata.actor.id}, ${event.recordedAt})`);
    },
  },
});
