// Insights: dashboards and their panels, each a whitelisted aggregate over a collection or the audit log (docs/insights.md).
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

const panelQuery =
  'A panel query is `{ source?: items | audit, collection, aggregate: count | sum | avg | min | max, field? (required unless count), groupBy? (at most 3), ' +
  'filter?, dateRange?: { field, from?, to? } | { field, last: "<n><h|d|w|m|y>" }, bucket?: hour | day | week | month | year, limit? (1–1000, default 100) }`. ' +
  '`field`, `groupBy`, `dateRange.field` and every filter key must be fields the caller may read: anything else (unknown, unreadable, to-many, pii/phi, ' +
  'or not a field name at all) is 400 INVALID_FIELD with its path; a misfit (a sum over text, a bucket of a non-date) is 400 VALIDATION_FAILED.';
const answer =
  'Answers `{ data: [{ <group fields>, value }], meta: { executedAt, rowCount, durationMs, cached } }`, run with the caller’s read permissions, ' +
  'cached briefly per caller rights (SVC_PANEL_CACHE_SECONDS) and dropped by a write to the collection. The audit source is for site administrators (403 otherwise).';

export const insightsOperations: OperationCatalogue = {
  'GET /dashboards': { summary: 'The site’s dashboards', description: 'By name, paged; each with its `panelCount`.' },
  'POST /dashboards': { summary: 'Create a dashboard', description: '`name` (1–200) is required; `icon`, `color` (#rgb or #rrggbb) and `note` (at most 2,000) are optional.' },
  'GET /dashboards/{id}': { summary: 'One dashboard with its panels', description: 'Panels by position: top to bottom, then left to right.' },
  'PATCH /dashboards/{id}': { summary: 'Change a dashboard' },
  'DELETE /dashboards/{id}': { summary: 'Delete a dashboard and its panels', response: noContent('The dashboard and its panels are deleted.') },
  'GET /dashboards/{id}/panels': { summary: 'A dashboard’s panels', description: 'By position: top to bottom, then left to right.' },
  'POST /dashboards/{id}/panels': {
    summary: 'Add a panel',
    description: `\`{ name, type: metric | bar | line | pie | table | list, position: { x, y, width, height }, query, options? }\`; at most 100 panels a dashboard. ${panelQuery}`,
    errors: ['INVALID_FIELD'],
  },
  'PATCH /dashboards/{id}/panels/{panelId}': {
    summary: 'Change a panel',
    description: `The query is replaced whole. A panel of another dashboard is 404. ${panelQuery}`,
    errors: ['INVALID_FIELD'],
  },
  'DELETE /dashboards/{id}/panels/{panelId}': { summary: 'Remove a panel', description: 'A panel of another dashboard is 404.', response: noContent('The panel is removed.') },
  'POST /dashboards/{id}/panels/{panelId}/data': {
    summary: 'Run a panel',
    description: `${answer} The stored query is checked against the caller’s whitelist (errors at \`panel.query…\`).`,
    errors: ['INVALID_FIELD'],
  },
  'POST /dashboards/{id}/panels/preview': { summary: 'Dry-run a panel query', description: `Body \`{ query }\`. ${panelQuery} ${answer}`, errors: ['INVALID_FIELD'] },
};
