// Reads of git integrations (never their token or webhook secret in an answer), the deliveries they
// accepted and the intents their gitops syncs keep.
import type { GitSyncConfig } from '../../../domain/git/events.ts';
import { errors } from '../../../domain/shared/appError.ts';
import type { GitHostSettings } from '../../../infra/git/gitHost.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { IntegrationView } from './schemas.ts';

/** An integration with what the area needs beside the view: its sealed token's and secret's references. */
export interface IntegrationRow extends IntegrationView {
  token: string | null;
  webhookSecret: string;
}

interface Row {
  site_id: string;
  id: string;
  provider: IntegrationView['provider'];
  repo_full_name: string;
  display_name: string;
  auth_method: IntegrationView['authMethod'];
  token: string | null;
  installation_id: string | null;
  webhook_secret: string;
  status: IntegrationView['status'];
  sync_config: GitSyncConfig;
  created_at: Date;
  updated_at: Date;
}

const SELECT = sql`
  SELECT site_id, id, provider, repo_full_name, display_name, auth_method, token, installation_id, webhook_secret, status, sync_config,
         created_at, updated_at
    FROM git_integrations`;

/** Where a provider delivers this integration's webhooks (SVC_PUBLIC_URL + the receiver's path). */
export function webhookUrl(publicUrl: string, row: { site_id: string; provider: string; id: string }): string {
  return new URL(`/api/v1/integrations/git/webhook/${row.provider}/${row.site_id}/${row.id}`, publicUrl).toString();
}

function rowOf(row: Row, publicUrl: string): IntegrationRow {
  return {
    id: row.id,
    provider: row.provider,
    repoFullName: row.repo_full_name,
    displayName: row.display_name,
    authMethod: row.auth_method,
    installationId: row.installation_id,
    hasToken: row.token !== null,
    status: row.status,
    sync_config: row.sync_config,
    webhookUrl: webhookUrl(publicUrl, row),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    token: row.token,
    webhookSecret: row.webhook_secret,
  };
}

export function viewOf(row: IntegrationRow): IntegrationView {
  const { token: _token, webhookSecret: _webhookSecret, ...view } = row;
  return view;
}

export async function listIntegrations(tx: Queryable, siteId: string, publicUrl: string, page: { limit: number; page: number }): Promise<{ integrations: IntegrationView[]; total: number }> {
  const rows = await tx.query<Row>(sql`${SELECT} WHERE site_id = ${siteId} ORDER BY created_at, id LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM git_integrations WHERE site_id = ${siteId}`);
  return { integrations: rows.map((row) => viewOf(rowOf(row, publicUrl))), total: count?.total ?? 0 };
}

export async function findIntegration(tx: Queryable, siteId: string, integrationId: string, publicUrl: string): Promise<IntegrationRow | null> {
  const [row] = await tx.query<Row>(sql`${SELECT} WHERE site_id = ${siteId} AND id = ${integrationId}`);
  return row ? rowOf(row, publicUrl) : null;
}

export async function repositoryTaken(tx: Queryable, siteId: string, provider: string, repoFullName: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM git_integrations WHERE site_id = ${siteId} AND provider = ${provider} AND lower(repo_full_name) = lower(${repoFullName})`);
  return rows.length > 0;
}

/** The outcome recorded for a delivery id, or null when the integration has not accepted it. */
export async function deliveryOutcome(tx: Queryable, siteId: string, integrationId: string, deliveryId: string): Promise<string | null> {
  const [row] = await tx.query<{ outcome: string }>(
    sql`SELECT outcome FROM git_webhook_deliveries WHERE site_id = ${siteId} AND integration_id = ${integrationId} AND delivery_id = ${deliveryId}`,
  );
  return row?.outcome ?? null;
}

/** The intents a gitops sync keeps, by their key in the intents file. */
export async function gitopsIntents(tx: Queryable, siteId: string, integrationId: string): Promise<Map<string, string>> {
  const rows = await tx.query<{ key: string; intent_id: string }>(sql`SELECT key, intent_id FROM git_gitops_intents WHERE site_id = ${siteId} AND integration_id = ${integrationId}`);
  return new Map(rows.map((row) => [row.key, row.intent_id]));
}

export async function findIntegrationOr404(context: AppContext, tx: Queryable, siteId: string, integrationId: string): Promise<IntegrationRow> {
  const integration = await findIntegration(tx, siteId, integrationId, context.config.SVC_PUBLIC_URL);
  if (!integration) throw errors.notFound('Git integration not found');
  return integration;
}

/** Whether a site exists and is not deleted (a provider's call names its site in its path or state). */
export async function siteIsLive(context: AppContext, siteId: string): Promise<boolean> {
  const rows = await context.database.query(sql`SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`);
  return rows.length > 0;
}

/** Where the providers are (SVC_GIT_*). */
export function hostSettings(context: AppContext): GitHostSettings {
  const { config } = context;
  return { githubApiUrl: config.SVC_GIT_GITHUB_API_URL, githubWebUrl: config.SVC_GIT_GITHUB_URL, gitlabUrl: config.SVC_GIT_GITLAB_URL, timeoutMs: config.SVC_GIT_TIMEOUT_MS };
}
