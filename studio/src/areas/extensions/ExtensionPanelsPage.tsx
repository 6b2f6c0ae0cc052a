// The extension panels of the site (GET /extensions/ui/manifest): the `navigation` ones as pages of
// their own, listed here by location; and one panel's page.
import { Link, useParams } from '@tanstack/react-router';
import { PageHeader, QueryState } from '../../ui/parts.tsx';
import { UI_LOCATIONS } from './api.ts';
import { ExtensionFrame } from './ExtensionFrame.tsx';
import { ExtensionSlot, useUiManifest } from './ExtensionSlot.tsx';

const WHERE: Record<string, string> = {
  navigation: 'Pages of their own',
  dashboard: 'On every dashboard',
  'item.sidebar': "In an item's sidebar",
  'collection.toolbar': "In a collection's toolbar",
  settings: 'In the settings',
};

export function ExtensionPanelsPage() {
  const manifest = useUiManifest();
  const extensions = manifest.data?.extensions ?? [];
  return (
    <section className="stack">
      <PageHeader title="Extension panels">
        <p className="muted">What the enabled extensions add to the Studio, by where it appears.</p>
      </PageHeader>
      {extensions.length === 0 ? <QueryState query={manifest} empty="No enabled extension adds a panel." /> : null}
      {UI_LOCATIONS.map((location) => {
        const panels = extensions.flatMap((extension) => extension.panels.filter((panel) => panel.location === location).map((panel) => ({ extension, panel })));
        if (panels.length === 0) return null;
        return (
          <div key={location}>
            <h2>{WHERE[location] ?? location}</h2>
            <ul>
              {panels.map(({ extension, panel }) => (
                <li key={`${extension.id}/${panel.id}`}>
                  <Link to="/extension-panels/$extensionId/$panelId" params={{ extensionId: extension.id, panelId: panel.id }}>{panel.title}</Link>{' '}
                  <span className="muted">({extension.name} {extension.version})</span>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
      <ExtensionSlot location="settings" heading="Settings panels" />
    </section>
  );
}

export function ExtensionPanelPage() {
  const { extensionId, panelId } = useParams({ strict: false }) as { extensionId: string; panelId: string };
  const manifest = useUiManifest();
  const extension = manifest.data?.extensions.find((candidate) => candidate.id === extensionId);
  const panel = extension?.panels.find((candidate) => candidate.id === panelId);
  return (
    <section className="stack">
      <p><Link to="/extension-panels">← All extension panels</Link></p>
      {extension && panel ? (
        <>
          <PageHeader title={panel.title}>
            <p className="muted">From the extension {extension.name} {extension.version}</p>
          </PageHeader>
          <ExtensionFrame extensionId={extension.id} extensionName={extension.name} panel={panel} />
        </>
      ) : (
        <>
          <h1>Extension panel</h1>
          <QueryState query={manifest} empty="This panel is not in the manifest: its extension may be disabled." />
        </>
      )}
    </section>
  );
}
