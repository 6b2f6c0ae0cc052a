// Reads of the email read models, shaped for the answers (docs/email.md).
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { EmailCategory, RecipientStatus } from '../../../domain/email/events.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { LayoutView, MessageView, RecipientView, SuppressionView, TemplateVersionView, TemplateView } from './schemas.ts';

const offsetOf = (query: PageQuery) => (query.page - 1) * query.limit;
const iso = (date: Date) => date.toISOString();

interface LayoutRow {
  id: string;
  name: string;
  html: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}
const layoutView = (row: LayoutRow): LayoutView => ({
  id: row.id,
  name: row.name,
  html: row.html,
  version: row.version,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

export async function listLayouts(tx: Queryable, siteId: string, query: PageQuery): Promise<{ layouts: LayoutView[]; total: number }> {
  const rows = await tx.query<LayoutRow>(sql`
    SELECT id, name, html, version, created_at, updated_at FROM email_layouts WHERE site_id = ${siteId}
     ORDER BY lower(name), id LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM email_layouts WHERE site_id = ${siteId}`);
  return { layouts: rows.map(layoutView), total: count?.total ?? 0 };
}

export async function findLayout(tx: Queryable, siteId: string, layoutId: string): Promise<LayoutView | null> {
  const [row] = await tx.query<LayoutRow>(
    sql`SELECT id, name, html, version, created_at, updated_at FROM email_layouts WHERE site_id = ${siteId} AND id = ${layoutId}`,
  );
  return row ? layoutView(row) : null;
}

/** The keys of the templates that use a layout (a layout in use is not deleted). */
export async function templatesUsingLayout(tx: Queryable, siteId: string, layoutId: string): Promise<string[]> {
  const rows = await tx.query<{ key: string }>(sql`SELECT key FROM email_templates WHERE site_id = ${siteId} AND layout_id = ${layoutId} ORDER BY key LIMIT 10`);
  return rows.map((row) => row.key);
}

interface TemplateContentRow {
  key: string;
  subject: string;
  html: string | null;
  text: string | null;
  layout_id: string | null;
  category: EmailCategory;
  variables: string[];
  version: number;
}
interface TemplateRow extends TemplateContentRow {
  id: string;
  created_at: Date;
  updated_at: Date;
}
const contentView = (row: TemplateContentRow) => ({
  key: row.key,
  subject: row.subject,
  html: row.html,
  text: row.text,
  layoutId: row.layout_id,
  category: row.category,
  variables: row.variables,
  version: row.version,
});
const templateView = (row: TemplateRow): TemplateView => ({
  id: row.id,
  ...contentView(row),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});
const TEMPLATE_COLUMNS = sql`id, key, subject, html, text, layout_id, category, variables, version, created_at, updated_at`;

export async function listTemplates(
  tx: Queryable,
  siteId: string,
  query: PageQuery & { category?: EmailCategory | undefined },
): Promise<{ templates: TemplateView[]; total: number }> {
  const category = query.category ?? null;
  const rows = await tx.query<TemplateRow>(sql`
    SELECT ${TEMPLATE_COLUMNS} FROM email_templates
     WHERE site_id = ${siteId} AND (${category}::text IS NULL OR category = ${category}::text)
     ORDER BY key LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM email_templates WHERE site_id = ${siteId} AND (${category}::text IS NULL OR category = ${category}::text)`);
  return { templates: rows.map(templateView), total: count?.total ?? 0 };
}

export async function findTemplate(tx: Queryable, siteId: string, templateId: string): Promise<TemplateView | null> {
  const [row] = await tx.query<TemplateRow>(sql`SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE site_id = ${siteId} AND id = ${templateId}`);
  return row ? templateView(row) : null;
}

export async function findTemplateByKey(tx: Queryable, siteId: string, key: string): Promise<TemplateView | null> {
  const [row] = await tx.query<TemplateRow>(sql`SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE site_id = ${siteId} AND key = ${key}`);
  return row ? templateView(row) : null;
}

export async function templateKeyTaken(tx: Queryable, siteId: string, key: string, exceptId: string | null): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM email_templates WHERE site_id = ${siteId} AND key = ${key} AND id IS DISTINCT FROM ${exceptId}::uuid`);
  return rows.length > 0;
}

interface VersionRow extends TemplateContentRow {
  template_id: string;
  created_at: Date;
}
const versionView = (row: VersionRow): TemplateVersionView => ({ templateId: row.template_id, ...contentView(row), createdAt: iso(row.created_at) });
const VERSION_COLUMNS = sql`template_id, version, key, subject, html, text, layout_id, category, variables, created_at`;

export async function findTemplateVersion(tx: Queryable, siteId: string, templateId: string, version: number): Promise<TemplateVersionView | null> {
  const [row] = await tx.query<VersionRow>(sql`
    SELECT ${VERSION_COLUMNS} FROM email_template_versions WHERE site_id = ${siteId} AND template_id = ${templateId} AND version = ${version}`);
  return row ? versionView(row) : null;
}

export async function listTemplateVersions(
  tx: Queryable,
  siteId: string,
  templateId: string,
  query: PageQuery,
): Promise<{ versions: TemplateVersionView[]; total: number }> {
  const rows = await tx.query<VersionRow>(sql`
    SELECT ${VERSION_COLUMNS} FROM email_template_versions WHERE site_id = ${siteId} AND template_id = ${templateId}
     ORDER BY version DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(
    sql`SELECT count(*)::int AS total FROM email_template_versions WHERE site_id = ${siteId} AND template_id = ${templateId}`,
  );
  return { versions: rows.map(versionView), total: count?.total ?? 0 };
}

interface SuppressionRow {
  email: string;
  reason: string;
  created_at: Date;
}
const suppressionView = (row: SuppressionRow): SuppressionView => ({ email: row.email, reason: row.reason, createdAt: iso(row.created_at) });

export async function listSuppressions(
  tx: Queryable,
  siteId: string,
  query: PageQuery & { emailHash?: string | undefined },
): Promise<{ suppressions: SuppressionView[]; total: number }> {
  const hash = query.emailHash ?? null;
  const rows = await tx.query<SuppressionRow>(sql`
    SELECT email, reason, created_at FROM email_suppressions
     WHERE site_id = ${siteId} AND (${hash}::text IS NULL OR email_hash = ${hash}::text)
     ORDER BY created_at DESC, email_hash DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM email_suppressions WHERE site_id = ${siteId} AND (${hash}::text IS NULL OR email_hash = ${hash}::text)`);
  return { suppressions: rows.map(suppressionView), total: count?.total ?? 0 };
}

export async function findSuppression(tx: Queryable, siteId: string, emailHash: string): Promise<SuppressionView | null> {
  const [row] = await tx.query<SuppressionRow>(sql`SELECT email, reason, created_at FROM email_suppressions WHERE site_id = ${siteId} AND email_hash = ${emailHash}`);
  return row ? suppressionView(row) : null;
}

export interface CandidateRecipient {
  email: string;
  hash: string;
}

export interface MarketingFilter {
  suppressed: Set<string>;
  noConsent: Set<string>;
  restricted: Set<string>;
}

/**
 * Which of a marketing send's recipients it skips, by hash: the suppressed, the site's users whose
 * marketing consent is not granted, and users whose processing is restricted (one query; every
 * lookup is a primary key or the users' email index).
 */
export async function marketingFilter(tx: Queryable, siteId: string, recipients: readonly CandidateRecipient[]): Promise<MarketingFilter> {
  const rows = await tx.query<{ hash: string; suppressed: boolean; user_id: string | null; consented: boolean; restricted: boolean }>(sql`
    SELECT r.hash,
           EXISTS (SELECT 1 FROM email_suppressions s WHERE s.site_id = ${siteId} AND s.email_hash = r.hash) AS suppressed,
           u.id AS user_id,
           coalesce(c.granted, false) AS consented,
           (p.user_id IS NOT NULL) AS restricted
      FROM unnest(${recipients.map((recipient) => recipient.email)}::text[], ${recipients.map((recipient) => recipient.hash)}::text[]) AS r(email, hash)
      LEFT JOIN users u ON u.site_id = ${siteId} AND u.email = r.email AND u.deleted_at IS NULL
      LEFT JOIN consents c ON c.site_id = ${siteId} AND c.user_id = u.id AND c.consent_type = 'marketing'
      LEFT JOIN processing_restrictions p ON p.site_id = ${siteId} AND p.user_id = u.id`);
  const filter: MarketingFilter = { suppressed: new Set(), noConsent: new Set(), restricted: new Set() };
  for (const row of rows) {
    if (row.suppressed) filter.suppressed.add(row.hash);
    else if (row.restricted) filter.restricted.add(row.hash);
    else if (row.user_id !== null && !row.consented) filter.noConsent.add(row.hash);
  }
  return filter;
}

interface SendRow {
  id: string;
  category: EmailCategory;
  test: boolean;
  template_id: string | null;
  template_key: string | null;
  template_version: number | null;
  status: MessageView['status'];
  recipients: number;
  queued: number;
  sent: number;
  deferred: number;
  bounced: number;
  failed: number;
  skipped_suppressed: number;
  skipped_no_consent: number;
  skipped_restricted: number;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}
const messageView = (row: SendRow): MessageView => ({
  id: row.id,
  category: row.category,
  templateKey: row.template_key,
  templateId: row.template_id,
  templateVersion: row.template_version,
  test: row.test,
  status: row.status,
  counts: {
    recipients: row.recipients,
    queued: row.queued,
    sent: row.sent,
    deferred: row.deferred,
    bounced: row.bounced,
    failed: row.failed,
    skipped: row.skipped_suppressed + row.skipped_no_consent + row.skipped_restricted,
  },
  skipped: { suppressed: row.skipped_suppressed, noConsent: row.skipped_no_consent, restricted: row.skipped_restricted },
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
  completedAt: row.completed_at ? iso(row.completed_at) : null,
});

export async function listMessages(
  tx: Queryable,
  siteId: string,
  query: PageQuery & { status?: string | undefined; category?: string | undefined },
): Promise<{ messages: MessageView[]; total: number }> {
  const status = query.status ?? null;
  const category = query.category ?? null;
  const where = sql`site_id = ${siteId} AND (${status}::text IS NULL OR status = ${status}::text) AND (${category}::text IS NULL OR category = ${category}::text)`;
  const rows = await tx.query<SendRow>(sql`SELECT * FROM email_sends WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM email_sends WHERE ${where}`);
  return { messages: rows.map(messageView), total: count?.total ?? 0 };
}

export async function findMessage(tx: Queryable, siteId: string, sendId: string): Promise<MessageView | null> {
  const [row] = await tx.query<SendRow>(sql`SELECT * FROM email_sends WHERE site_id = ${siteId} AND id = ${sendId}`);
  return row ? messageView(row) : null;
}

interface RecipientRow {
  recipient_hash: string;
  status: RecipientStatus;
  message_id: string | null;
  response: string | null;
  attempts: number;
  updated_at: Date;
}

export async function listRecipients(
  tx: Queryable,
  siteId: string,
  sendId: string,
  query: PageQuery & { status?: RecipientStatus | undefined },
): Promise<{ recipients: RecipientView[]; total: number }> {
  const status = query.status ?? null;
  const where = sql`site_id = ${siteId} AND send_id = ${sendId} AND (${status}::text IS NULL OR status = ${status}::text)`;
  const rows = await tx.query<RecipientRow>(sql`
    SELECT recipient_hash, status, message_id, response, attempts, updated_at FROM email_send_recipients
     WHERE ${where} ORDER BY recipient_hash LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM email_send_recipients WHERE ${where}`);
  return {
    recipients: rows.map((row) => ({
      hash: row.recipient_hash,
      status: row.status,
      messageId: row.message_id,
      response: row.response,
      attempts: row.attempts,
      updatedAt: iso(row.updated_at),
    })),
    total: count?.total ?? 0,
  };
}

/** The delivery state of a batch's recipients (a retry skips those already sent or bounced). */
export async function recipientStates(tx: Queryable, siteId: string, sendId: string, hashes: readonly string[]): Promise<Map<string, { status: RecipientStatus; attempts: number }>> {
  const rows = await tx.query<{ recipient_hash: string; status: RecipientStatus; attempts: number }>(sql`
    SELECT recipient_hash, status, attempts FROM email_send_recipients
     WHERE site_id = ${siteId} AND send_id = ${sendId} AND recipient_hash = ANY(${hashes as string[]}::text[])`);
  return new Map(rows.map((row) => [row.recipient_hash, { status: row.status, attempts: row.attempts }]));
}

/** A user's address (the caller of a test send); null for a role-bound API key, which is no user. */
export async function callerAddress(tx: Queryable, siteId: string, userId: string): Promise<string | null> {
  if (!isUuid(userId)) return null;
  const [row] = await tx.query<{ email: string }>(sql`SELECT email FROM users WHERE site_id = ${siteId} AND id = ${userId}::uuid AND deleted_at IS NULL`);
  return row?.email ?? null;
}

/** Whether the site an unsubscribe token names is live (a deleted site's tokens suppress nothing). */
export async function siteIsLive(tx: Queryable, siteId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`);
  return rows.length > 0;
}
