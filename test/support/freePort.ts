// A port on 127.0.0.1 that nothing listens on right now: a listener's port, closed again. For a
// service a test starts on a port it names, or for a connection that must be refused.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
