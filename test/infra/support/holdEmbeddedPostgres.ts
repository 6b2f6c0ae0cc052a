// Starts an embedded PostgreSQL on the data dir given as argument, prints its URL, and waits to be
// killed: the test then plays a crashed `svc start` that left its server running.
import { startEmbeddedPostgres } from '../../../infra/postgres/embedded.ts';

const server = await startEmbeddedPostgres(process.argv[2]!);
process.stdout.write(`${server.connectionString}\n`);
setInterval(() => undefined, 60_000);
