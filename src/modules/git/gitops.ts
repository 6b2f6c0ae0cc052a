// POST …/gitops/sync (docs/integrations.md "Gitops"): the repository's intents file, read at one
// commit of a branch, reconciled into the site's content intents in one transaction: a new key
// creates an intent, a changed one updates it, a key gone from the file closes its intent. Every
// intent event carries the commit in its metadata (provenance); the sync itself is an event that
// records which intent each key keeps.
import { randomUUID } from 'node:crypto';
import { intentDecider } from '../../../domain/agents/intent.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findIntent } from '../agents/agentWorkQueries.ts';
import { assertAgentRole, intentStream } from '../agents/intents.ts';
import { advisoryKey } from '../../runtime/projectionRunner.ts';
import { openRepository, runIntegrationCommand } from './handlers.ts';
import { gitopsIntents } from './queries.ts';
import { intentsFileSchema, type IntentsFile } from './schemas.ts';

/** An intents file is read up to this size. */
const INTENTS_FILE_LIMIT = 1024 * 1024;

const invalid = (message: string, ...path: (string | number)[]) => new AppError('VALIDATION_ERROR', message, { path: ['repository', ...path] });

function parseIntentsFile(path: string, text: string): IntentsFile {
  if (Buffer.byteLength(text) > INTENTS_FILE_LIMIT) throw invalid(`${path} is larger than ${INTENTS_FILE_LIMIT} bytes`, path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(`${path} is not JSON: ${(error as Error).message}`, path);
  }
  const parsed = intentsFileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalid(`${path}: ${issue.path.join('.')}: ${issue.message}`, path, ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
}

export interface GitopsResult {
  commit: string;
  path: string;
  created: string[];
  updated: string[];
  closed: string[];
  unchanged: string[];
}

export async function syncIntents(context: AppContext, siteId: string, integrationId: string, ref: string | undefined, createdBy: string | null, metadata: EventMetadata): Promise<GitopsResult> {
  const { integration, repository } = await openRepository(context, siteId, integrationId);
  const path = integration.sync_config.intentsPath;
  const branch = ref ?? integration.sync_config.branch ?? (await repository.defaultBranch());
  const commit = await repository.resolveCommit(branch);
  if (commit === null) throw new AppError('VALIDATION_ERROR', `No branch, tag or commit "${branch}" in ${integration.repoFullName}`, { path: ['body', 'ref'] });
  const text = await repository.readFile(path, commit);
  if (text === null) throw invalid(`${path} not found at ${commit.slice(0, 12)} of ${integration.repoFullName}`, path);
  const file = parseIntentsFile(path, text);
  const provenance: EventMetadata = { ...metadata, git: { integrationId, commit, pullRequest: null } };

  return inSiteTransaction(context, siteId, async (tx) => {
    // One sync of an integration at a time: the second reconciles against what the first made.
    await tx.query(sql`SELECT pg_advisory_xact_lock(${advisoryKey(`git-gitops:${siteId}:${integrationId}`)})`);
    const kept = await gitopsIntents(tx, siteId, integrationId);
    const result: GitopsResult = { commit, path, created: [], updated: [], closed: [], unchanged: [] };
    const created: { key: string; intentId: string }[] = [];
    const intentCommand = (intentId: string, command: Parameters<typeof intentDecider.decide>[0]) =>
      handleCommandIn(tx, context.projections, { siteId, streamId: intentStream(siteId, intentId), decider: intentDecider, command, metadata: provenance });
    for (const [index, entry] of file.intents.entries()) {
      const content = { title: entry.title, description: entry.description ?? null, role: entry.role ?? null };
      try {
        await assertAgentRole(tx, siteId, content.role);
      } catch {
        throw invalid(`${path}: intents.${index}.role: no agent role "${content.role}" in this site`, path, 'intents', index, 'role');
      }
      const intentId = kept.get(entry.key);
      const intent = intentId === undefined ? null : await findIntent(tx, siteId, intentId);
      if (!intent || intent.status === 'closed') {
        const newId = randomUUID();
        await intentCommand(newId, { type: 'createIntent', intentId: newId, content, createdBy });
        created.push({ key: entry.key, intentId: newId });
        result.created.push(entry.key);
      } else if (intent.title !== content.title || intent.description !== content.description || intent.role !== content.role) {
        await intentCommand(intent.id, { type: 'updateIntent', changes: content });
        result.updated.push(entry.key);
      } else {
        result.unchanged.push(entry.key);
      }
    }
    const listed = new Set(file.intents.map((entry) => entry.key));
    for (const [key, intentId] of kept) {
      if (listed.has(key)) continue;
      const intent = await findIntent(tx, siteId, intentId);
      if (intent?.status === 'open') await intentCommand(intentId, { type: 'closeIntent', closedBy: createdBy, reason: `Removed from ${path} at ${commit.slice(0, 12)}` });
      result.closed.push(key);
    }
    await runIntegrationCommand(context, tx, siteId, integrationId, { type: 'recordGitopsSync', sync: { commit, path, created, updated: result.updated, closed: result.closed } }, provenance);
    return result;
  });
}
