// What every drill stands up and takes down: a database (scratch or throwaway cluster), optionally a
// redis-server of its own, one data dir shared by the instances (local file storage as a shared
// volume), and the instances themselves, started together (one migrates, the others wait for it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDrillDatabase, type DrillDatabase } from './drillDatabase.ts';
import { startPrivateRedis, type PrivateRedis } from './privateRedis.ts';
import { createInstance, type LogLine, type ServiceInstance } from './serviceInstance.ts';

export interface DrillEnvironment {
  database: DrillDatabase;
  redis: PrivateRedis | null;
  instances: ServiceInstance[];
  /** The data dir every instance shares. */
  dataDir: string;
  /** Stops every instance, Redis and PostgreSQL of the drill, and removes what they left. */
  close(): Promise<void>;
}

export interface EnvironmentOptions {
  instances: number;
  redis: boolean;
  /** Redis keeps its data across a kill (an append-only file synced on every write). */
  persistentRedis?: boolean;
  /** A PostgreSQL cluster of the drill's own, which it may stop (postgres-restart). */
  ownCluster?: boolean;
  /** Variables of every instance, or of each (by index) on top. */
  environment?: Record<string, string> | ((index: number) => Record<string, string>);
  onLog?: (instance: string, line: LogLine) => void;
}

const NAMES = 'abcdefghij';

export async function prepareEnvironment(drill: string, options: EnvironmentOptions): Promise<DrillEnvironment> {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-drill-${drill}-`));
  const database = await createDrillDatabase(drill, { ownCluster: options.ownCluster });
  const redis = options.redis ? await startPrivateRedis({ persistent: options.persistentRedis }) : null;
  const instances: ServiceInstance[] = [];
  const close = async () => {
    await Promise.all(
      instances.map(async (instance) => {
        const stopped = instance.stop('SIGTERM');
        const timeout = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 15_000).unref());
        if ((await Promise.race([stopped.then(() => 'done' as const), timeout])) === 'late') await instance.stop('SIGKILL');
      }),
    );
    await redis?.remove();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < options.instances; index += 1) {
      const name = NAMES[index]!;
      const own = typeof options.environment === 'function' ? options.environment(index) : options.environment;
      instances.push(
        await createInstance({
          name,
          databaseUrl: database.url,
          dataDir,
          environment: { ...(redis ? { REDIS_URL: redis.url } : {}), ...own },
          onLog: options.onLog ? (line) => options.onLog!(name, line) : undefined,
        }),
      );
    }
    await Promise.all(instances.map((instance) => instance.start()));
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { database, redis, instances, dataDir, close };
}
