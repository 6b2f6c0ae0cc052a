// Requests Node's HTTP parser refuses before Fastify sees them (a request line and headers over
// 16 KiB, a malformed request, a client too slow to send its headers) still get the error envelope.
// As Node and Fastify do by default, the answer is written straight to the socket, which is then closed.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

interface ClientError {
  status: number;
  code: string;
  message: string;
  path: string[];
}

function describe(error: Error & { code?: string }): ClientError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'REQUEST_HEADERS_TOO_LARGE',
        message: 'The request line and headers exceed 16 KiB: shorten the URL (a long filter takes fewer bytes in the JSON form)',
        path: ['headers'],
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not received in time', path: [] };
    default:
      return { status: 400, code: 'VALIDATION_FAILED', message: 'Malformed HTTP request', path: [] };
  }
}

/** The answer to a request the HTTP parser refused: the status line, headers and envelope. */
export function clientErrorResponse(error: Error & { code?: string }): string {
  const { status, code, message, path } = describe(error);
  const body = JSON.stringify({ errors: [{ code, message, path, extensions: {} }] });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(clientErrorResponse(error));
  socket.destroy(error);
}
