// The areas' manifests (src/modules/index.ts): every read model has one owning area, every scheduled
// task one name, and a tick runs due releases first.
import { describe, expect, it } from 'vitest';
import { projections } from '../../projections/index.ts';
import { areas, scheduledTasks } from '../../src/modules/index.ts';

describe('the area manifests', () => {
  it('give every registered read model exactly one owning area, and name no other', () => {
    const owners = new Map<string, string[]>();
    for (const area of areas) for (const projection of area.projections ?? []) owners.set(projection.name, [...(owners.get(projection.name) ?? []), area.name]);
    const registered = projections.map((projection) => projection.name);
    expect([...owners.keys()].filter((name) => !registered.includes(name))).toEqual([]);
    expect(registered.filter((name) => owners.get(name)?.length !== 1)).toEqual([]);
  });

  it('name each area and each scheduled task once', () => {
    const areaNames = areas.map((area) => area.name);
    expect(new Set(areaNames).size).toBe(areaNames.length);
    const taskNames = scheduledTasks.map((task) => task.name);
    expect(new Set(taskNames).size).toBe(taskNames.length);
    expect(taskNames.sort()).toEqual(areas.flatMap((area) => area.scheduledTasks ?? []).map((task) => task.name).sort());
  });

  it('run the tasks of a tick in the order the scheduler always has: due releases first, then due schedule flows', () => {
    expect(scheduledTasks.map((task) => task.name)).toEqual(['releases', 'flows-schedule', 'flow-runs', 'cdc-retention', 'item-counts', 'log-checkpoints', 'sign-in-failures', 'agent-staged']);
  });
});
