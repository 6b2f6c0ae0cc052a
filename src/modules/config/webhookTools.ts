// The webhook side of an import: secrets sealed as the change feed seals them, and URLs checked by the
// same outbound rules as POST /cdc/subscriptions. Built once per context, closed with it.
import { createOutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createSecretBox } from '../cdc/webhookSecrets.ts';
import type { WebhookTools } from './importManifest.ts';

export function createWebhookTools(context: Pick<AppContext, 'config' | 'version' | 'onClose'>): WebhookTools {
  const http = createOutboundHttp({ allowPrivate: context.config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-webhooks/${context.version}` });
  context.onClose(async () => http.close());
  return { secrets: createSecretBox(context.config.SVC_SECRET), checkUrl: (url) => http.checkUrl(url) };
}
