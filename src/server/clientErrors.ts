// Requests Node's HTTP parser refuses before Fastify sees them (a request line and headers over
// 16 KiB, a malformed request, a client too slow to send its headers) still get the error envelope.
// As Node and Fastify do by default, the answer is written straight to the socket, which is then closed.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
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
