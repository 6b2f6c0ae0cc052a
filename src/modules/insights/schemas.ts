// The shapes the insights routes take and answer (docs/insights.md), shared with the area's commands.
// Field names in a panel query are any bounded text here: whether they name a field the caller may
// read is the whitelist's question (panelQuery.ts), answered 400 INVALID_FIELD with its path.
import { z } from 'zod';
import { PANEL_TYPES } from '../../../domain/insights/events.ts';
import { DATE_BUCKETS } from '../../query/index.ts';

export const PANEL_AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type PanelAggregate = (typeof PANEL_AGGREGATES)[number];
export const PANEL_SOURCES = ['items', 'audit'] as const;
export const MAX_GROUP_BY = 3;
export const DEFAULT_PANEL_LIMIT = 100;
export const MAX_PANEL_LIMIT = 1_000;
/** A filter or a panel's options, as JSON text, at most this long. */
const MAX_FILTER_CHARS = 10_000;
const MAX_OPTIONS_CHARS = 4_000;
/** `last: '<n><unit>'`: n from 1 to 1,000; h hours, d days, w weeks, m months, y years. */
export const RELATIVE_RANGE = /^([1-9][0-9]{0,3})([hdwmy])$/;
const MAX_RELATIVE_COUNT = 1_000;

const fieldName = z.string().min(1).max(200);
const jsonObject = (maxChars: number) =>
  z.record(z.string(), z.unknown()).refine((value) => JSON.stringify(value).length <= maxChars, `must be at most ${maxChars} characters as JSON`);
const isoTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO-8601 date or date-time' });

const dateRangeSchema = z
  .object({ field: fieldName, from: isoTime.optional(), to: isoTime.optional(), last: z.string().max(8).optional() })
  .strict()
  .superRefine((range, issues) => {
    if (range.last === undefined) return;
    const match = RELATIVE_RANGE.exec(range.last);
    if (!match || Number(match[1]) > MAX_RELATIVE_COUNT) {
      issues.addIssue({ code: 'custom', message: `must be <n><unit>: n from 1 to ${MAX_RELATIVE_COUNT}, unit h, d, w, m (months) or y`, path: ['last'] });
    }
    if (range.from !== undefined || range.to !== undefined) {
      issues.addIssue({ code: 'custom', message: 'give either `last` or `from`/`to`, not both', path: ['last'] });
    }
  });

export const panelQuerySchema = z
  .object({
    source: z.enum(PANEL_SOURCES).optional(),
    collection: z.string().min(1).max(64).optional(),
    aggregate: z.enum(PANEL_AGGREGATES),
    field: fieldName.optional(),
    groupBy: z.array(fieldName).max(MAX_GROUP_BY).optional(),
    filter: jsonObject(MAX_FILTER_CHARS).optional(),
    dateRange: dateRangeSchema.optional(),
    bucket: z.enum(DATE_BUCKETS).optional(),
    limit: z.number().int().min(1).max(MAX_PANEL_LIMIT).optional(),
  })
  .strict()
  .superRefine((query, issues) => {
    const source = query.source ?? 'items';
    if (source === 'items' && query.collection === undefined) issues.addIssue({ code: 'custom', message: 'required for the items source', path: ['collection'] });
    if (source === 'audit' && query.collection !== undefined) {
      issues.addIssue({ code: 'custom', message: 'the audit source has no collection: filter on `collection` instead', path: ['collection'] });
    }
    if (query.aggregate !== 'count' && query.field === undefined) issues.addIssue({ code: 'custom', message: `required for ${query.aggregate}`, path: ['field'] });
    if (query.bucket !== undefined && query.dateRange === undefined) issues.addIssue({ code: 'custom', message: 'a bucket groups by dateRange.field: give dateRange', path: ['bucket'] });
  });
export type PanelQueryBody = z.infer<typeof panelQuerySchema>;

const positionSchema = z
  .object({
    x: z.number().int().min(0).max(1_000),
    y: z.number().int().min(0).max(10_000),
    width: z.number().int().min(1).max(100),
    height: z.number().int().min(1).max(100),
  })
  .strict();

const panelFields = {
  name: z.string().trim().min(1).max(200),
  type: z.enum(PANEL_TYPES),
  position: positionSchema,
  query: panelQuerySchema,
  options: jsonObject(MAX_OPTIONS_CHARS).nullable(),
};
export const createPanelBody = z.object(panelFields).partial({ options: true }).strict();
export const updatePanelBody = z.object(panelFields).partial().strict();
export type CreatePanelBody = z.infer<typeof createPanelBody>;
export type UpdatePanelBody = z.infer<typeof updatePanelBody>;

const dashboardFields = {
  name: z.string().trim().min(1).max(200),
  icon: z.string().trim().min(1).max(64).nullable(),
  color: z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be #rgb or #rrggbb').nullable(),
  note: z.string().max(2_000).nullable(),
};
export const createDashboardBody = z.object(dashboardFields).partial({ icon: true, color: true, note: true }).strict();
export const updateDashboardBody = z.object(dashboardFields).partial().strict();
export type CreateDashboardBody = z.infer<typeof createDashboardBody>;
export type UpdateDashboardBody = z.infer<typeof updateDashboardBody>;

export const previewBody = z.object({ query: panelQuerySchema }).strict();

export const panelSchema = z.object({
  id: z.string(),
  dashboardId: z.string(),
  name: z.string(),
  type: z.enum(PANEL_TYPES),
  position: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
  query: z.record(z.string(), z.unknown()),
  options: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PanelView = z.infer<typeof panelSchema>;

export const dashboardSchema = z.object({
  id: z.string(),
  name: z.string(),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  note: z.string().nullable(),
  panelCount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type DashboardView = z.infer<typeof dashboardSchema>;
export const dashboardDetailSchema = dashboardSchema.extend({ panels: z.array(panelSchema) });
export type DashboardDetail = z.infer<typeof dashboardDetailSchema>;

/** A panel's answer: one row per group (`{ <group fields>, value }`), or one row without groupBy. */
export const panelDataSchema = z.object({
  data: z.array(z.record(z.string(), z.unknown())),
  meta: z.object({ executedAt: z.string(), rowCount: z.number(), durationMs: z.number(), cached: z.boolean() }),
});
