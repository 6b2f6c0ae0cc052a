// Requests Node's HTTP server refuses before Fastify sees them (a request line and headers over
// 16 KiB, a malformed request, a client too slow to send its headers, an Expect it cannot meet, an
// HTTP/1.1 request without Host) still get the error envelope. As Node and Fastify do by default,
// a parser refusal is written straight to the socket, which is then closed.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/shared/appError.ts';
import { errorBody } from './errorHandler.ts';

function describe(error: Error & { code?: string }): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'REQUEST_HEADERS_TOO_LARGE',
        'The request line and headers exceed 16 KiB: shorten the URL (a long filter takes fewer bytes in the JSON form)',
        { path: ['headers'] },
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request was not received in time');
    default:
      return new AppError('VALIDATION_FAILED', 'Malformed HTTP request');
  }
}

/** The answer to a request the HTTP parser refused: the status line, headers and envelope. */
export function clientErrorResponse(error: Error & { code?: string }): string {
  const appError = describe(error);
  const body = JSON.stringify(errorBody(appError));
  return (
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(clientErrorResponse(error));
  socket.destroy(error);
}

/**
 * Node's 'checkExpectation': an Expect header other than 100-continue, which Node would answer with
 * a bare 417. The body is not read; the connection is closed.
 */
export function handleUnmetExpectation(request: IncomingMessage, response: ServerResponse): void {
  const appError = new AppError('EXPECTATION_FAILED', 'Only "Expect: 100-continue" is supported', { path: ['headers', 'expect'] });
  const body = JSON.stringify(errorBody(appError));
  response.writeHead(appError.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  response.end(body);
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112 §3.2). Node's own check (requireHostHeader, turned off in
 * app.ts) answers a bare 400; this onRequest hook answers it in the envelope.
 */
export async function requireHostHeader(request: FastifyRequest): Promise<void> {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    throw new AppError('VALIDATION_FAILED', 'An HTTP/1.1 request needs a Host header', { path: ['headers', 'host'] });
  }
}
