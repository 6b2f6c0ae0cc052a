import { describe, expect, it } from 'vitest';
import { settingsDecider, settingsOutcome, type SettingEvent } from '../../../domain/settings/settings.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(settingsDecider);
const set = (key: string, value: unknown): SettingEvent => ({ type: 'setting.set', data: { key, value } });

describe('settings decider', () => {
  it('records one event per key whose value changes, set keys first, in key order', () => {
    spec
      .given([set('a', 1), set('b', { x: [1, 2] })])
      .when({ type: 'writeSettings', set: { c: true, b: { x: [1, 2] }, a: 2 }, remove: ['zz', 'b'] })
      .then([set('a', 2), set('c', true)]);
  });

  it('removes stored keys only, and compares values whatever their key order', () => {
    spec.given([set('a', { x: 1, y: 2 })]).when({ type: 'writeSettings', set: { a: { y: 2, x: 1 } }, remove: ['missing'] }).thenNothing();
    spec.given([set('a', 1)]).when({ type: 'writeSettings', set: {}, remove: ['a', 'a'] }).then([{ type: 'setting.removed', data: { key: 'a' } }]);
  });

  it('counts what a write created, updated, removed and left unchanged', () => {
    const state = [set('a', 1), set('b', 2)].reduce((current, event) => settingsDecider.evolve(current, event), settingsDecider.initialState());
    const command = { type: 'writeSettings' as const, set: { a: 1, b: 3, c: 4 }, remove: ['b2', 'a2'] };
    const events = settingsDecider.decide(command, state);
    expect(settingsOutcome(state, events, command)).toEqual({ created: 1, updated: 1, deleted: 0, unchanged: 3 });
  });
});
