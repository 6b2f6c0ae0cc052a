import { describe, expect, it } from 'vitest';
import { defineProjection, type Projection } from '../../projections/projection.ts';
import { splitIntoLanes } from '../../src/runtime/projectionLanes.ts';

function projection(name: string, cost?: number): Projection {
  return defineProjection({ name, mode: 'async', eventTypes: '*', tables: [], cost, apply: async () => undefined });
}

const names = (lanes: Projection[][]) => lanes.map((lane) => lane.map((member) => member.name));

describe('splitIntoLanes', () => {
  it('puts the costliest projection first, each next one into the lightest lane, keeping the given order inside a lane', () => {
    const projections = [projection('audit'), projection('feed', 2), projection('access'), projection('search', 4)];
    expect(names(splitIntoLanes(projections, 2))).toEqual([['search'], ['audit', 'feed', 'access']]);
    expect(names(splitIntoLanes(projections, 3))).toEqual([['search'], ['feed'], ['audit', 'access']]);
  });

  it('gives one lane for a count of 1 or less, and no more lanes than projections', () => {
    const projections = [projection('a'), projection('b', 3)];
    expect(names(splitIntoLanes(projections, 1))).toEqual([['a', 'b']]);
    expect(names(splitIntoLanes(projections, 0))).toEqual([['a', 'b']]);
    expect(names(splitIntoLanes(projections, 8))).toEqual([['b'], ['a']]);
    expect(splitIntoLanes([], 2)).toEqual([]);
  });

  it('breaks ties between equal costs by order, and between equal lanes by the earlier lane', () => {
    const projections = [projection('a'), projection('b'), projection('c'), projection('d')];
    expect(names(splitIntoLanes(projections, 2))).toEqual([['a', 'c'], ['b', 'd']]);
  });
});
