// How a stream's stored events reach a decider: only those of its own types, narrowed to them.
import { describe, expect, it } from 'vitest';
import { teamDecider } from '../../../domain/identity/team.ts';
import { eventsOf, isEventOf } from '../../../domain/shared/events.ts';
import { recordDecider } from '../../../domain/shared/recordDecider.ts';

const teamId = '0190d6a0-0000-7000-8000-000000000001';
const created = { type: 'team.created', data: { teamId, name: 'Editors', description: null, members: [] } };
const deleted = { type: 'team.deleted', data: { teamId } };
const foreign = { type: 'site.deleted', data: { siteId: 's1', deletedAt: '2030-01-01T00:00:00.000Z' } };

describe('the events a decider folds', () => {
  it('are its own types, in their order, and an event of another type is skipped', () => {
    expect(isEventOf(teamDecider, created)).toBe(true);
    expect(isEventOf(teamDecider, foreign)).toBe(false);
    expect(eventsOf(teamDecider, [created, foreign, deleted])).toEqual([created, deleted]);
    const state = eventsOf(teamDecider, [created, foreign, deleted]).reduce((current, event) => teamDecider.evolve(current, event), teamDecider.initialState());
    expect(state).toEqual({ status: 'deleted', teamId });
  });

  it('are none for a stream that only records facts', () => {
    expect(eventsOf(recordDecider(), [created, foreign])).toEqual([]);
  });
});
