// The MCP endpoint: the skills as Model Context Protocol tools over streamable HTTP (docs/mcp.md).
import type { OperationCatalogue } from '../operationEntry.ts';

const jsonRpcAnswer = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    result: { type: 'object', additionalProperties: true },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
  },
};

export const mcpOperations: OperationCatalogue = {
  'POST /mcp': {
    summary: 'MCP: JSON-RPC 2.0 over streamable HTTP',
    description:
      'Only with `SVC_MCP_ENABLED` on; off, the route is `public` and answers 404 `NOT_FOUND` whatever the credentials or the body. On, it needs a bearer token (a session token ' +
      'or an API key) and `X-Svc-Site`, like every site route. Stateless: no `Mcp-Session-Id`, every request is answered with JSON (`Accept` must list `application/json` and ' +
      '`text/event-stream`, else 406); `GET` and `DELETE` are 405. One message per request, no batches. Methods: `initialize`, `ping`, `tools/list` (the skills the caller ' +
      'may call, with their input schema, `readOnlyHint` and `destructiveHint` for dangerous skills) and `tools/call`, which runs the skill as the agent `mcp:<request id>` ' +
      'for the caller, under the agent role named by `X-Svc-Agent-Role` (optional). A dangerous tool answers a result with `status: "pending_approval"`, `approvalId` and ' +
      '`code: "HITL_REQUIRED"` and runs nothing; a refusal (`SKILL_DENIED`, `AGENT_FROZEN`, `VALIDATION_FAILED`, `NOT_FOUND`) is a result with `isError: true` and the ' +
      'error envelope in `structuredContent`. A notification alone is answered 202 with no body. Rate limited as item writes.',
    errors: ['NOT_FOUND', 'NOT_ACCEPTABLE'],
    response: {
      status: 200,
      contentType: 'application/json',
      raw: jsonRpcAnswer,
      description: 'The JSON-RPC response to the message (a `result`, or an `error` of the protocol); 202 with no body for a notification.',
    },
  },
};
