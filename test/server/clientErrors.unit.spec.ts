import { describe, expect, it } from 'vitest';
import { clientErrorResponse } from '../../src/server/clientErrors.ts';

function parse(response: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
  expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
  return { status, headers: head, body: JSON.parse(body) };
}

describe('answers to requests the HTTP parser refused', () => {
  it('gives each its status and the error envelope', () => {
    const cases: [string, number, string][] = [
      ['HPE_HEADER_OVERFLOW', 431, 'REQUEST_HEADERS_TOO_LARGE'],
      ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'REQUEST_TIMEOUT'],
      ['HPE_INVALID_METHOD', 400, 'VALIDATION_FAILED'],
    ];
    for (const [code, status, errorCode] of cases) {
      const response = parse(clientErrorResponse(Object.assign(new Error('refused'), { code })));
      expect(response.status, code).toBe(status);
      expect(response.headers).toContain('Connection: close');
      expect(response.body).toEqual({ errors: [{ code: errorCode, message: expect.any(String), path: expect.any(Array), extensions: {} }] });
    }
  });
});
