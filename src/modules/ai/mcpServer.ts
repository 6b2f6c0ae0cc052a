// The MCP server of one request (docs/mcp.md): the skills the caller may use as tools (tools/list),
// and a tool call run through the skill runner as an agent acting for the caller (tools/call). The
// skill runner is the only path: the agent gate, the caller's own rights and the approval of a
// dangerous skill apply as they do for the copilot and the agent API.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import type { UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { CommandClient } from '../../runtime/commandRegistry.ts';
import { errorBody, toAppError } from '../../server/errorHandler.ts';
import { listSkills, runSkill } from './skillRunner.ts';
import type { AgentIdentity, SkillDescriptor, SkillOutcome } from './skillTypes.ts';

/** Who calls the tools of one MCP request: the site, the principal of the token, the agent that stands for it. */
export interface McpCaller {
  siteId: string;
  principal: UserPrincipal;
  agent: AgentIdentity;
  requestId: string;
  client: CommandClient;
  logger: FastifyBaseLogger;
}

const DANGEROUS_NOTE = ' Dangerous: a call answers a pending approval (status "pending_approval", code HITL_REQUIRED) and runs nothing until a person approves it.';

/** A skill as an MCP tool: its registry name (dots are valid tool names), description, input schema and hints. */
export function toolOf(skill: SkillDescriptor): Tool {
  return {
    name: skill.name,
    description: skill.dangerous ? `${skill.description}${DANGEROUS_NOTE}` : skill.description,
    // Tools take an object of arguments: a schema that does not say so (a union of objects) is narrowed to one.
    inputSchema: { ...skill.inputSchema, type: 'object' },
    annotations: { title: skill.name, readOnlyHint: !skill.mutates, destructiveHint: skill.dangerous, openWorldHint: false },
  };
}

/**
 * A skill's outcome as a tool result: the outcome itself as `structuredContent` (a pending approval
 * also carries the code HITL_REQUIRED), and its JSON text as the content a model reads. Waiting for
 * a person or staged is a result, not an error: nothing was refused.
 */
export function toolResultOf(outcome: SkillOutcome): CallToolResult {
  const structured: Record<string, unknown> = outcome.status === 'pending_approval' ? { ...outcome, code: 'HITL_REQUIRED' } : { ...outcome };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A refused call (SKILL_DENIED, AGENT_FROZEN, VALIDATION_FAILED, NOT_FOUND, …) as a tool error: the REST envelope's errors. */
function toolErrorOf(code: string, message: string, body: ReturnType<typeof errorBody>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { ...body } };
}

async function callTool(context: AppContext, caller: McpCaller, name: string, input: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const outcome = await runSkill(context, {
      siteId: caller.siteId,
      principal: caller.principal,
      agent: caller.agent,
      call: { skill: name, input },
      requestId: caller.requestId,
      client: caller.client,
    });
    return toolResultOf(outcome);
  } catch (error) {
    const appError = toAppError(error);
    if (appError && appError.status < 500) return toolErrorOf(appError.code, appError.message, errorBody(appError));
    // A fault of the service is a JSON-RPC internal error that says nothing of its cause; the log has it.
    caller.logger.error({ err: error, tool: name }, 'MCP tool call failed');
    throw new McpError(ErrorCode.InternalError, appError ? `${appError.code}: ${appError.message}` : 'Internal error');
  }
}

/** A stateless MCP server for one request of `caller`: tools/list and tools/call over the skill registry. */
export function createMcpServer(context: AppContext, caller: McpCaller): McpServer {
  const mcp = new McpServer(
    { name: 'svc', version: context.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'The tools are the skills of this site, run with the rights of the token that called them. Dangerous tools answer a pending approval that a person decides ' +
        '(POST /api/v1/ai/approvals/:id/decide); they run nothing before.',
    },
  );
  mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await listSkills(context, caller.siteId, caller.principal)).map(toolOf),
  }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(context, caller, request.params.name, request.params.arguments ?? {}));
  return mcp;
}
