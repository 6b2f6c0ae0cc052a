// Marks a retiring route (RFC 8594 and RFC 9745): Deprecation, Sunset and a Link to the changelog.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface Retirement {
  /** When the route was deprecated. */
  deprecatedAt: Date;
  /** When it stops answering. */
  sunsetAt: Date;
  /** Where clients read about the replacement. */
  link: string;
}

export function retiringRoute(retirement: Retirement) {
  return async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Deprecation', `@${Math.floor(retirement.deprecatedAt.getTime() / 1000)}`);
    reply.header('Sunset', retirement.sunsetAt.toUTCString());
    reply.header('Link', `<${retirement.link}>; rel="deprecation"; type="text/html"`);
  };
}
