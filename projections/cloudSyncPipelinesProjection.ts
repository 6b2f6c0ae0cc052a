// Each site's cloud-sync pipelines as they are now (docs/integrations.md). The sync reactor's state
// and attempt log of a pipeline are its own tables (readModelOwners.ts); a delete clears them.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const cloudSyncPipelinesProjection = defineProjection({
  name: 'cloud-sync-pipelines',
  mode: 'inline',
  tables: ['cloud_sync_pipelines'],
  handlers: {
    'cloud_sync_pipeline.created': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO cloud_sync_pipelines (site_id, id, name, target, status, project_id, collections, target_path,
                                          sync_on_create, sync_on_update, sync_on_delete, credentials, start_seq, created_at, updated_at)
        VALUES (${event.siteId}, ${d.pipelineId}, ${d.name}, ${d.target}, 'active', ${d.projectId}, ${d.collections}::text[], ${d.targetPath},
                ${d.syncOnCreate}, ${d.syncOnUpdate}, ${d.syncOnDelete}, ${d.credentials}, ${d.startSeq}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'cloud_sync_pipeline.updated': async (tx, event) => {
      const { pipelineId, changes: c } = event.data;
      await tx.query(sql`
        UPDATE cloud_sync_pipelines
           SET name = coalesce(${c.name ?? null}::text, name),
               project_id = coalesce(${c.projectId ?? null}::text, project_id),
               collections = coalesce(${c.collections ?? null}::text[], collections),
               target_path = coalesce(${c.targetPath ?? null}::text, target_path),
               sync_on_create = coalesce(${c.syncOnCreate ?? null}::boolean, sync_on_create),
               sync_on_update = coalesce(${c.syncOnUpdate ?? null}::boolean, sync_on_update),
               sync_on_delete = coalesce(${c.syncOnDelete ?? null}::boolean, sync_on_delete),
               credentials = coalesce(${c.credentials ?? null}::text, credentials),
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${pipelineId}`);
    },
    'cloud_sync_pipeline.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM cloud_sync_pipelines WHERE site_id = ${event.siteId} AND id = ${event.data.pipelineId}`);
    },
  },
});
