// POST /mcp (docs/mcp.md): the Model Context Protocol over streamable HTTP, stateless. Each request
// gets its own MCP server and transport (no session: GET and DELETE are 405), authenticated like
// every site route (a session token or an API key, and X-Svc-Site), and answers JSON. The skills are
// its tools (mcpServer.ts). Behind SVC_MCP_ENABLED: off, the route answers 404 whatever came with it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { errorBody } from '../../server/errorHandler.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { AGENT_ROLE_NAME } from '../agents/rolesSchemas.ts';

/** The largest JSON-RPC message the endpoint reads (a tool call's arguments: an item's content at most). */
export const MCP_BODY_LIMIT = 1024 * 1024;

/** The header naming the agent role an MCP client acts under (docs/agents.md); absent: the principal's own grants. */
export const AGENT_ROLE_HEADER = 'x-svc-agent-role';

const requestId = z.union([z.string().min(1).max(200), z.number().int()]);

/**
 * One JSON-RPC 2.0 message: a request, a notification or a response to the server. Batches are not
 * taken (the protocol dropped them in 2025-06-18). The SDK checks the rest of the message.
 */
export const mcpMessage = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: requestId.optional(),
  method: z.string().min(1).max(200).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The agent role of the X-Svc-Agent-Role header: a role's name, or null without the header. */
function agentRoleOf(request: FastifyRequest): string | null {
  const value = request.headers[AGENT_ROLE_HEADER];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !AGENT_ROLE_NAME.test(value)) {
    throw new AppError('VALIDATION_FAILED', 'headers.x-svc-agent-role: an agent role’s name (lowercase letters, digits, - and _, at most 64)', {
      path: ['headers', AGENT_ROLE_HEADER],
    });
  }
  return value;
}

/** The client must take both JSON and an event stream (the protocol's rule): 406 here, as an envelope. */
function assertAccepts(request: FastifyRequest): void {
  const accept = request.headers.accept ?? '';
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return;
  throw new AppError('NOT_ACCEPTABLE', 'An MCP client must accept both application/json and text/event-stream', {
    path: ['headers', 'accept'],
    extensions: { expected: ['application/json', 'text/event-stream'] },
  });
}

/** The transport writes the answer itself: the headers the hooks set (CORS, rate limits) and the request id go with it. */
function handOver(request: FastifyRequest, reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.raw.setHeader('X-Request-Id', request.id);
  reply.hijack();
}

/** The MCP SDK and our server over it: imported only when the endpoint is on (most instances leave it off, and the SDK is large). */
async function loadMcp() {
  const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('./mcpServer.ts'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  return { createMcpServer, StreamableHTTPServerTransport };
}

export async function mcpRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const enabled = context.config.SVC_MCP_ENABLED;
  const off = async (): Promise<void> => {
    throw errors.notFound('The MCP endpoint is off on this instance (SVC_MCP_ENABLED)');
  };
  // Loaded as the route is registered, so the first request does not wait for it.
  const mcpSdk = enabled ? await loadMcp() : null;

  api.post(
    '/mcp',
    {
      bodyLimit: MCP_BODY_LIMIT,
      // Off, the route reads no credentials and no body: 404 before either (its own onRequest hook).
      config: enabled ? { site: 'required', access: 'bearer', rateLimit: 'itemsWrite' } : { access: 'public' },
      ...(enabled ? {} : { onRequest: off }),
      schema: { tags: ['agents'], body: mcpMessage },
    },
    async (request, reply) => {
      // Loaded whenever the endpoint is on; off, the onRequest hook has answered before this runs.
      const { createMcpServer, StreamableHTTPServerTransport } = mcpSdk!;
      const principal = userPrincipal(request.principal);
      const role = agentRoleOf(request);
      assertAccepts(request);
      const mcp = createMcpServer(context, {
        siteId: request.siteId,
        principal,
        agent: { id: `mcp:${request.id}`, role },
        requestId: request.id,
        client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
        logger: request.log,
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      handOver(request, reply);
      try {
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          reply.raw.end(JSON.stringify(errorBody(new AppError('INTERNAL', 'Internal error'))));
        } else {
          reply.raw.destroy();
        }
      } finally {
        await mcp.close();
      }
      return reply;
    },
  );
}
