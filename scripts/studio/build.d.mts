// Types of build.mjs for the TypeScript scripts that import it.
export function studioIsStale(): boolean;
export function buildStudio(): void;
