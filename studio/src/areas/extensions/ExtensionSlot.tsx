// Where extension panels appear: every enabled extension's panels declared for one location of the
// Studio (GET /extensions/ui/manifest), each in its sandboxed frame. Other areas may place a slot for
// their own locations (`item.sidebar`, `collection.toolbar`, `settings`). Only administrators see
// them: the service runs extensions for site administrators only (POST /extensions/:id/run).
import { useQuery } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import { apiJson } from '../../api.ts';
import { useIsAdmin } from '../../ui/permissions.ts';
import { ErrorNote } from '../../ui/parts.tsx';
import { extensionKeys, type UiLocation, type UiManifest } from './api.ts';
import { ExtensionFrame } from './ExtensionFrame.tsx';
import './extensions.css';

export function useUiManifest(enabled = true) {
  const client = useClient();
  return useQuery({
    queryKey: extensionKeys.manifest,
    enabled,
    queryFn: async () => (await apiJson<{ data: UiManifest }>(client, 'GET', '/extensions/ui/manifest')).data,
  });
}

export function ExtensionSlot({ location, heading }: { location: UiLocation; heading: string }) {
  const admin = useIsAdmin();
  // Members see no panel: the manifest is not asked for on their item and list pages.
  const manifest = useUiManifest(admin);
  if (!admin) return null;
  const panels = (manifest.data?.extensions ?? []).flatMap((extension) => extension.panels.filter((panel) => panel.location === location).map((panel) => ({ extension, panel })));
  if (manifest.error) return <ErrorNote error={manifest.error} />;
  if (panels.length === 0) return null;
  return (
    <section className="stack" aria-label={heading}>
      <h2>{heading}</h2>
      {panels.map(({ extension, panel }) => (
        <article key={`${extension.id}/${panel.id}`} className="card stack" aria-label={`${panel.title} (${extension.name})`}>
          <h3>{panel.title} <span className="badge">{extension.name} {extension.version}</span></h3>
          <ExtensionFrame extensionId={extension.id} extensionName={extension.name} panel={panel} />
        </article>
      ))}
    </section>
  );
}
