// A short name for "this deployment" (one database), used to keep Redis keys, channels and BullMQ
// queues of different deployments (or test databases) sharing one Redis apart. Instances of one
// deployment must get the same name, so it is the database's address only (host, port, database):
// not the user, the password or the connection options, which may differ between instances (a
// password rotated on one first, an application name per instance, sslmode).
import { createHash } from 'node:crypto';

/** The database's address in a PostgreSQL URL: `host:port/database`; the text itself when it is no URL. */
export function databaseIdentity(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return databaseUrl;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return databaseUrl;
  return `${url.hostname.toLowerCase()}:${url.port || '5432'}${url.pathname}`;
}

/** The namespace of the deployment: its database's address, or the data dir of the embedded one. */
export function deploymentNamespace(config: { DATABASE_URL?: string | undefined; dataDir: string }): string {
  const identity = config.DATABASE_URL ? databaseIdentity(config.DATABASE_URL) : config.dataDir;
  return createHash('sha256').update(identity).digest('hex').slice(0, 12);
}
