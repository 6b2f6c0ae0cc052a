// The preset decider, given events / when command / then events.
import { describe, it } from 'vitest';
import { presetDecider, type PresetContent } from '../../../domain/presets/preset.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(presetDecider);
const presetId = '0190d6a0-0000-7000-8000-000000000001';
const alice = '0190d6a0-0000-7000-8000-00000000000a';
const preset: PresetContent = {
  collection: 'articles',
  bookmark: null,
  userId: alice,
  roleId: null,
  layout: 'table',
  query: { fields: ['title'], sort: ['-title'], limit: 50 },
  options: {},
  icon: null,
  color: null,
};
const created = { type: 'preset.created', data: { presetId, preset } };

describe('preset decider', () => {
  it('creates a preset once', () => {
    spec.given([]).when({ type: 'createPreset', presetId, preset }).then([{ type: 'preset.created', data: { presetId, preset } }]);
    spec.given([created]).when({ type: 'createPreset', presetId, preset }).thenThrows('CONFLICT', 409);
  });

  it('records the whole preset after a change with the keys that changed, and nothing when nothing changes', () => {
    spec
      .given([created])
      .when({ type: 'updatePreset', changes: { layout: 'cards', query: { fields: ['title'], sort: ['-title'], limit: 50 }, userId: null } })
      .then([{ type: 'preset.updated', data: { presetId, preset: { ...preset, layout: 'cards', userId: null }, changed: ['userId', 'layout'] } }]);
    spec.given([created]).when({ type: 'updatePreset', changes: { layout: 'table', options: {} } }).thenNothing();
  });

  it('folds updates, so a second change compares with the first', () => {
    const updated = { type: 'preset.updated', data: { presetId, preset: { ...preset, layout: 'cards' }, changed: ['layout'] } };
    spec.given([created, updated]).when({ type: 'updatePreset', changes: { layout: 'cards' } }).thenNothing();
  });

  it('refuses to change or delete a preset that does not exist or was deleted', () => {
    const deleted = { type: 'preset.deleted', data: { presetId } };
    spec.given([]).when({ type: 'updatePreset', changes: { layout: 'map' } }).thenThrows('NOT_FOUND', 404);
    spec.given([created, deleted]).when({ type: 'updatePreset', changes: { layout: 'map' } }).thenThrows('NOT_FOUND', 404);
    spec.given([created, deleted]).when({ type: 'deletePreset' }).thenThrows('NOT_FOUND', 404);
    spec.given([created]).when({ type: 'deletePreset' }).then([{ type: 'preset.deleted', data: { presetId } }]);
  });
});
