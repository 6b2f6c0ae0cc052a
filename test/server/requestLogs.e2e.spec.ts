// Every log line of a request carries its request id, and its site once the site is known
// (docs/operations.md, "Logs"): the lines a deployment's log search is keyed on.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/boot/boot.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
    done();
  },
});
const service = await startTestServiceForFile({ LOG_LEVEL: 'debug' }, { logger: createLogger({ LOG_LEVEL: 'debug' }, sink) });

describe('request log lines', () => {
  it('carry the request id on every line, and the site on the lines logged after it is resolved', async () => {
    const site = await createTestSite(service);
    const requestId = `logs-test-${Date.now()}`;
    const response = await service.request('GET', '/items/nothing_here', { site: site.siteId, token: site.adminToken, headers: { 'x-request-id': requestId } });
    expect(response.status).toBe(404);
    const ofRequest = lines.filter((line) => line.reqId === requestId);
    expect(ofRequest.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    const completed = ofRequest.find((line) => line.msg === 'request completed')!;
    expect(completed).toMatchObject({ reqId: requestId, siteId: site.siteId, res: { statusCode: 404 } });
  });

  it('carry no site for a route without one, and never the credentials', async () => {
    const requestId = `logs-test-health-${Date.now()}`;
    await service.request('GET', '/utils/health', { headers: { 'x-request-id': requestId, authorization: 'Bearer secret-token-value-123' } });
    const ofRequest = lines.filter((line) => line.reqId === requestId);
    expect(ofRequest.length).toBeGreaterThan(0);
    for (const line of ofRequest) expect(line.siteId).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain('secret-token-value-123');
  });
});
