// The ceiling of `npm run bench -- peer` (issue #38): a bare Fastify hello-world on the project's own
// fastify, logger off, started by peerHello.ts on the Node that runs ours. Listens on PORT (8056) and
// writes its pid to PIDFILE once it listens (bench.mjs reads the server's RSS and CPU through it).
import { writeFileSync } from 'node:fs';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 8056) });
if (process.env.PIDFILE) writeFileSync(process.env.PIDFILE, String(process.pid));
console.log(`hello-world: fastify ${app.version} on node ${process.version}, pid ${process.pid}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
