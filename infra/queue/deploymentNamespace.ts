// A short name for "this deployment" (one database), used to keep Redis keys, channels and BullMQ
// queues of different deployments (or test databases) sharing one Redis apart.
import { createHash } from 'node:crypto';

export function deploymentNamespace(databaseIdentity: string): string {
  return createHash('sha256').update(databaseIdentity).digest('hex').slice(0, 12);
}
