// The skills agent roles and constitution rules name: the command registry's entries flagged `skill`
// (src/modules/ai/skills.ts), by name, by area (`<area>.*`) or all (`*`).
import type { AppContext } from '../../runtime/context.ts';

/** The names of the registered skills: the command registry's entries flagged `skill`. */
export function skillNames(context: Pick<AppContext, 'commands'>): string[] {
  return context.commands
    .list()
    .filter((summary) => summary.skill)
    .map((summary) => summary.name);
}

/** Whether a skill pattern names registered skills: `*`, `<area>.*` of an area with skills, or a skill's name. */
export function isSkillPattern(pattern: string, skills: readonly string[]): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return skills.some((skill) => skill.startsWith(pattern.slice(0, -1)));
  return skills.includes(pattern);
}
