// The extensions API (docs/extensions.md) as the Studio uses it.
export const UI_LOCATIONS = ['dashboard', 'item.sidebar', 'collection.toolbar', 'settings', 'navigation'] as const;
export type UiLocation = (typeof UI_LOCATIONS)[number];

export interface Extension {
  id: string;
  name: string;
  version: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  entry: string;
  official: boolean;
  signerKeyId: string;
  sha256: string;
  capabilities: { requested: string[]; granted: string[] };
  ui: { panels: number; locations: UiLocation[] } | null;
  createdAt: string;
  updatedAt: string;
}

export interface UiPanel {
  id: string;
  title: string;
  location: UiLocation;
}

export interface UiManifest {
  extensions: { id: string; name: string; version: string; panels: UiPanel[] }[];
}

export interface RunResult {
  status: 'succeeded' | 'failed';
  output: unknown;
  error: { kind: string; message: string } | null;
  logs: { level: string; message: string }[];
  durationMs: number;
}

export const extensionKeys = {
  list: ['extensions', 'list'] as const,
  manifest: ['extensions', 'ui-manifest'] as const,
  run: (id: string, panelId: string) => ['extensions', 'run', id, panelId] as const,
};
