// The webhooks and settings parts of an import plan. A webhook is known by its name; exports never
// carry its signing secret, so one the import creates needs `secret` in its entry, and an existing
// one keeps its own (rotate it with PATCH /cdc/subscriptions/:id). A setting is known by its key.
import type { ConfigPlan, SiteConfiguration, WebhookUpdate } from './configPlan.ts';
import type { Deletable, RecordChange } from './planSchema.ts';
import type { ParsedManifest } from './readManifest.ts';
import { canonicalJson } from '../shared/canonicalJson.ts';

const sameList = (a: readonly string[] | null, b: readonly string[] | null) => JSON.stringify(a ? [...a].sort() : null) === JSON.stringify(b ? [...b].sort() : null);

export function planWebhooks(current: SiteConfiguration, manifest: ParsedManifest, deletable: Deletable, plan: ConfigPlan, record: RecordChange): void {
  const byName = new Map(current.subscriptions.map((subscription) => [subscription.name, subscription]));
  for (const entry of manifest.webhooks) {
    const existing = byName.get(entry.name);
    if (existing?.kind === 'pull') {
      plan.errors.push({ code: 'CONFLICT', message: `"${entry.name}" is the name of a pull subscription of the site`, path: [...entry.path, 'name'] });
      continue;
    }
    if (!existing) {
      if (!entry.secret) {
        plan.errors.push({
          code: 'VALIDATION_FAILED',
          message: `Webhook "${entry.name}" is new: give its signing secret in "secret" (exports never carry secrets)`,
          path: [...entry.path, 'secret'],
        });
        continue;
      }
      record({ resource: 'webhooks', action: 'create', key: entry.name, path: entry.path });
      plan.work.webhookCreates.push({ name: entry.name, url: entry.url, secret: entry.secret, collections: entry.collections, operations: entry.operations });
      continue;
    }
    const update: WebhookUpdate = { id: existing.id, changes: {} };
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (existing.url !== entry.url) {
      update.changes.url = entry.url;
      changes.url = { from: existing.url, to: entry.url };
    }
    if (!sameList(existing.collections, entry.collections)) {
      update.changes.collections = entry.collections;
      changes.collections = { from: existing.collections, to: entry.collections };
    }
    if (!sameList(existing.operations, entry.operations)) {
      update.changes.operations = entry.operations;
      changes.operations = { from: existing.operations, to: entry.operations };
    }
    if (Object.keys(changes).length === 0) {
      plan.counts.webhooks.unchanged += 1;
      continue;
    }
    record({ resource: 'webhooks', action: 'update', key: entry.name, changes, path: entry.path });
    plan.work.webhookUpdates.push(update);
  }
  if (!manifest.present.has('webhooks')) return;
  const listed = new Set(manifest.webhooks.map((entry) => entry.name));
  for (const subscription of current.subscriptions) {
    if (subscription.kind !== 'webhook' || listed.has(subscription.name) || !deletable({ kind: 'webhook', name: subscription.name })) continue;
    record({ resource: 'webhooks', action: 'delete', key: subscription.name, path: null });
    plan.work.webhookDeletes.push(subscription.id);
  }
}

export function planSettings(current: SiteConfiguration, manifest: ParsedManifest, deletable: Deletable, plan: ConfigPlan, record: RecordChange): void {
  if (!manifest.present.has('settings')) return;
  const stored = current.settings;
  for (const entry of manifest.settings) {
    const had = stored.has(entry.key);
    if (had && canonicalJson(stored.get(entry.key)) === canonicalJson(entry.value)) {
      plan.counts.settings.unchanged += 1;
      continue;
    }
    const changes = had ? { value: { from: stored.get(entry.key), to: entry.value } } : undefined;
    record({ resource: 'settings', action: had ? 'update' : 'create', key: entry.key, ...(changes ? { changes } : {}), path: entry.path });
    plan.work.settingsSet[entry.key] = entry.value;
  }
  const listed = new Set(manifest.settings.map((entry) => entry.key));
  for (const key of stored.keys()) {
    if (listed.has(key) || !deletable({ kind: 'setting', key })) continue;
    record({ resource: 'settings', action: 'delete', key, path: null });
    plan.work.settingsRemove.push(key);
  }
}
