import { describe, expect, it } from 'vitest';
import { databaseIdentity, deploymentNamespace } from '../../infra/queue/deploymentNamespace.ts';

const dataDir = '/var/lib/svc';
const namespaceOf = (url: string) => deploymentNamespace({ DATABASE_URL: url, dataDir });

describe('the deployment namespace', () => {
  it('is the same for instances whose URLs differ only in credentials or options', () => {
    const base = namespaceOf('postgres://svc:old@db.internal:5432/cms');
    expect(namespaceOf('postgres://svc:rotated@db.internal:5432/cms')).toBe(base);
    expect(namespaceOf('postgresql://other@DB.internal/cms?sslmode=require&application_name=b')).toBe(base);
  });

  it('differs for another database, host or port', () => {
    const base = namespaceOf('postgres://svc@db.internal:5432/cms');
    expect(namespaceOf('postgres://svc@db.internal:5432/cms_test')).not.toBe(base);
    expect(namespaceOf('postgres://svc@db2.internal:5432/cms')).not.toBe(base);
    expect(namespaceOf('postgres://svc@db.internal:6432/cms')).not.toBe(base);
  });

  it('uses the data dir of the embedded database, and text that is no URL as it is', () => {
    expect(deploymentNamespace({ dataDir })).toMatch(/^[0-9a-f]{12}$/);
    expect(deploymentNamespace({ dataDir })).not.toBe(deploymentNamespace({ dataDir: '/srv/other' }));
    expect(databaseIdentity('host=db dbname=cms')).toBe('host=db dbname=cms');
    expect(databaseIdentity('postgres://u:p@Db:5433/cms?x=1')).toBe('db:5433/cms');
  });
});
