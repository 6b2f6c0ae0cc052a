// The webhook side of an import: secrets sealed as the change feed seals them, and URLs checked by the
// same outbound rules as POST /cdc/subscriptions.
import { createOutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createSecretBox } from '../cdc/webhookSecrets.ts';
import type { WebhookTools } from './importManifest.ts';

type ToolsContext = Pick<AppContext, 'config' | 'version'>;

function webhookTools(context: ToolsContext) {
  const http = createOutboundHttp({ allowPrivate: context.config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-webhooks/${context.version}` });
  const tools: WebhookTools = { secrets: createSecretBox(context.config.SVC_SECRET), checkUrl: (url) => http.checkUrl(url) };
  return { tools, close: () => http.close() };
}

/** Tools built once per context, closed with it (the CLI's import). */
export function createWebhookTools(context: ToolsContext & Pick<AppContext, 'onClose'>): WebhookTools {
  const { tools, close } = webhookTools(context);
  context.onClose(async () => close());
  return tools;
}

/** Tools for one import, closed when it ends (a command's run has no plugin to hold them for the context's life). */
export async function withWebhookTools<T>(context: ToolsContext, work: (tools: WebhookTools) => Promise<T>): Promise<T> {
  const { tools, close } = webhookTools(context);
  try {
    return await work(tools);
  } finally {
    close();
  }
}
