// An extension panel: the Studio runs the extension for the panel (with the signed-in user's token, in
// this page), then hands the run's result to a sandboxed frame to draw. The frame is
// `sandbox="allow-scripts"` without `allow-same-origin`: an opaque origin that cannot reach this page,
// its storage or its token. Its document is the Studio's own frame.js (srcdoc inherits this page's CSP,
// so only the Studio's own files load in it), and the two talk only through postMessage: the frame says
// `ready` and `resize`; this page sends `render` with the theme, the site id, the panel and the result.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useClient, useSession } from '../../session.tsx';
import { useTheme } from '../../theme.tsx';
import { apiJson } from '../../api.ts';
import { ErrorNote } from '../../ui/parts.tsx';
import { extensionKeys, type RunResult, type UiPanel } from './api.ts';
import frameScript from './frame.js?url&no-inline';

function frameDocument(title: string): string {
  const origin = window.location.origin;
  const escape = (text: string) => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main id="root">Loading…</main><script src="${origin}${frameScript}"></script></body></html>`;
}

export function ExtensionFrame({ extensionId, extensionName, panel }: { extensionId: string; extensionName: string; panel: UiPanel }) {
  const client = useClient();
  const { site } = useSession();
  const { mode } = useTheme();
  const frame = useRef<HTMLIFrameElement>(null);
  const [ready, setReady] = useState(false);
  const [height, setHeight] = useState(160);
  const run = useQuery({
    queryKey: extensionKeys.run(extensionId, panel.id),
    queryFn: async () =>
      (await apiJson<{ data: RunResult }>(client, 'POST', `/extensions/${extensionId}/run`, { input: { panel: panel.id, location: panel.location } })).data,
    retry: false,
  });

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (!frame.current || event.source !== frame.current.contentWindow) return;
      const message = event.data as { type?: unknown; height?: unknown } | null;
      if (message?.type === 'svc-extension:ready') setReady(true);
      if (message?.type === 'svc-extension:resize' && typeof message.height === 'number') setHeight(Math.min(2000, Math.max(80, message.height)));
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useEffect(() => {
    if (!ready || !run.data || !frame.current?.contentWindow) return;
    // The frame's origin is opaque ('null'), so no origin can be named; the message holds nothing secret.
    const result = { status: run.data.status, output: run.data.output, error: run.data.error };
    frame.current.contentWindow.postMessage({ type: 'svc-extension:render', theme: mode, siteId: site, panel: { id: panel.id, title: panel.title }, result }, '*');
  }, [ready, run.data, mode, site, panel.id, panel.title]);

  const title = `${panel.title} (extension ${extensionName})`;
  return (
    <div className="stack">
      <ErrorNote error={run.error} />
      {run.error ? null : (
        <iframe
          ref={frame}
          className="ext-frame"
          title={title}
          sandbox="allow-scripts"
          referrerPolicy="no-referrer"
          srcDoc={frameDocument(title)}
          style={{ height }}
          data-extension={extensionId}
          data-panel={panel.id}
        />
      )}
      {run.data?.logs.length ? (
        <details>
          <summary>Log of the run ({run.data.logs.length})</summary>
          <ul>{run.data.logs.map((log, index) => <li key={index}>{log.message}</li>)}</ul>
        </details>
      ) : null}
    </div>
  );
}
