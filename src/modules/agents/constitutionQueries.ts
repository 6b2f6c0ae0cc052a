// Reads of the constitution (docs/agents.md "Constitution"): the draft, the versions, and the dry run
// of a proposed call against the draft or a version (a read: it records nothing).
import { compileConstitution, evaluateConstitution, type ConstitutionRule } from '../../../domain/agents/constitution.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { DraftView, DryRunBody, DryRunView, VersionView } from './constitutionSchemas.ts';
import { isSkillPattern, skillNames } from './rolesSkills.ts';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

interface DraftRow {
  text: string;
  revision: number;
  rules: ConstitutionRule[] | null;
  compiled_revision: number | null;
  updated_by: string | null;
  updated_at: Date;
  compiled_at: Date | null;
}

const draftView = (row: DraftRow): DraftView => {
  const compiled = row.compiled_revision === row.revision;
  return {
    text: row.text,
    revision: row.revision,
    compiled,
    rules: compiled ? row.rules : null,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at.toISOString(),
    compiledAt: compiled ? iso(row.compiled_at) : null,
  };
};

interface VersionRow {
  version: number;
  text: string;
  rules: ConstitutionRule[];
  draft_revision: number;
  activated_by: string | null;
  activated_at: Date;
}

const versionView = (row: VersionRow): VersionView => ({
  version: row.version,
  text: row.text,
  rules: row.rules,
  draftRevision: row.draft_revision,
  activatedBy: row.activated_by,
  activatedAt: row.activated_at.toISOString(),
});

export async function findDraft(tx: Queryable, siteId: string): Promise<DraftView | null> {
  const [row] = await tx.query<DraftRow>(sql`SELECT * FROM agent_constitution_drafts WHERE site_id = ${siteId}`);
  return row ? draftView(row) : null;
}

/** A version by number, or the active one (the highest) for 'active'. */
export async function findVersion(tx: Queryable, siteId: string, version: number | 'active'): Promise<VersionView | null> {
  const [row] = await tx.query<VersionRow>(
    version === 'active'
      ? sql`SELECT * FROM agent_constitution_versions WHERE site_id = ${siteId} ORDER BY version DESC LIMIT 1`
      : sql`SELECT * FROM agent_constitution_versions WHERE site_id = ${siteId} AND version = ${version}`,
  );
  return row ? versionView(row) : null;
}

/** Every version, newest first. */
export async function listVersions(tx: Queryable, siteId: string, query: PageQuery): Promise<{ versions: VersionView[]; total: number }> {
  const rows = await tx.query<VersionRow>(
    sql`SELECT * FROM agent_constitution_versions WHERE site_id = ${siteId} ORDER BY version DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM agent_constitution_versions WHERE site_id = ${siteId}`);
  return { versions: rows.map(versionView), total: count?.total ?? 0 };
}

/** Compiles a text with the registry's skills (a bad line: 400 at its number). */
export function compileWithSkills(context: Pick<AppContext, 'commands'>, text: string): ConstitutionRule[] {
  const skills = skillNames(context);
  return compileConstitution(text, (pattern) => isSkillPattern(pattern, skills));
}

/** What the draft (compiled now if its revision has not been) or a version says of a proposed call. */
export async function dryRunConstitution(context: AppContext, siteId: string, input: DryRunBody, version: 'draft' | 'active' | number): Promise<DryRunView> {
  if (!skillNames(context).includes(input.skill)) throw new AppError('VALIDATION_FAILED', `No registered skill "${input.skill}"`, { path: ['body', 'skill'] });
  const source = await context.database.withSiteReads(siteId, async (tx) => {
    if (version !== 'draft') {
      const found = await findVersion(tx, siteId, version);
      if (!found) throw errors.notFound(version === 'active' ? 'No constitution version is active' : `No constitution version ${version}`);
      return { version: found.version, rules: found.rules };
    }
    const draft = await findDraft(tx, siteId);
    if (!draft) throw errors.notFound('There is no draft: save one with PUT /agent/constitution/draft');
    return { version: null, rules: draft.rules ?? compileWithSkills(context, draft.text) };
  });
  const verdict = evaluateConstitution(source.rules, { skill: input.skill, collection: input.collection ?? null, role: input.role ?? null });
  return {
    source: source.version === null ? 'draft' : 'version',
    version: source.version,
    decision: verdict.decision,
    rule: verdict.rule && { line: verdict.rule.line, text: verdict.rule.text, effect: verdict.rule.effect },
    maxAutonomy: verdict.maxAutonomy,
  };
}
