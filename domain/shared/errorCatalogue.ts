// Every error code the service answers with, and its HTTP status, declared once (the spec's Errors
// table plus the transport codes the spec leaves to us). An AppError takes its status from here;
// a lint rule refuses a status picked by hand at the throw.
export const errorCatalogue = {
  // Input
  VALIDATION_FAILED: { status: 400, when: 'the input does not match the route schema (422 on routes that say so, with `unprocessable`)' },
  VALIDATION: { status: 400, when: 'a malformed JSON filter' },
  VALIDATION_ERROR: { status: 400, when: 'a cloud-sync pipeline body, or credentials that do not match its target (docs/integrations.md)' },
  INVALID_TARGET: { status: 422, when: 'a bad reassign target' },
  PAYLOAD_TOO_LARGE: { status: 413, when: 'the body is larger than SVC_BODY_LIMIT' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, when: 'the body has a content type the route does not take, or an upload of a type the guard cannot verify (`type_not_verifiable`)' },
  UPLOAD_REJECTED: { status: 422, when: 'the upload guard refused the bytes (`extensions.reason` says why: executable, svg_active_content, type_mismatch, ...)' },
  URI_TOO_LONG: { status: 414, when: 'a path parameter is longer than the router allows' },
  REQUEST_HEADERS_TOO_LARGE: { status: 431, when: 'the request line and headers exceed 16 KiB' },
  REQUEST_TIMEOUT: { status: 408, when: 'the request was not received in time' },
  METHOD_NOT_ALLOWED: { status: 405, when: 'the path exists, not with this method' },
  NOT_ACCEPTABLE: { status: 406, when: 'no representation matches the Accept header' },
  EXPECTATION_FAILED: { status: 417, when: 'an Expect header other than 100-continue' },
  // Identity and permissions
  UNAUTHENTICATED: { status: 401, when: 'no valid credentials' },
  INVALID_CREDENTIALS: { status: 401, when: 'a wrong email or password' },
  TOKEN_EXPIRED: { status: 401, when: 'the JWT expired; refresh and retry' },
  PERMISSION_DENIED: { status: 403, when: 'a policy check failed' },
  SKILL_DENIED: { status: 403, when: 'an AI skill needs a permission or capability the principal (or its agent role) lacks; nothing changed (docs/ai-skills.md)' },
  HITL_REQUIRED: { status: 202, when: 'a dangerous skill call waits for a person’s approval (`extensions.approvalId`): the agent API and MCP answer it (docs/ai-skills.md)' },
  SITE_NOT_FOUND: { status: 404, when: 'the site header resolves to an unknown tenant' },
  // Resources
  NOT_FOUND: { status: 404, when: 'a missing resource' },
  RECORD_NOT_FOUND: { status: 404, when: 'an item missing or not visible to the role' },
  CONFLICT: { status: 409, when: 'a unique constraint, or a concurrent change' },
  PRECONDITION_FAILED: { status: 412, when: 'If-Match names another version' },
  ISSUER_ALREADY_EXISTS: { status: 409, when: 'a duplicate trusted issuer' },
  DEPENDENT_RECORDS_EXIST: { status: 409, when: 'a restrict relation still points at the item' },
  FIELD_REQUIRED: { status: 409, when: 'set_null on a required field' },
  REVISION_STAGED: { status: 409, when: 'pinning an uncommitted revision' },
  DOMAIN_TAKEN: { status: 409, when: 'a site domain another site uses' },
  INVALID_FIELD: { status: 400, when: 'a panel query names a field outside the whitelist (docs/insights.md)' },
  // Releases (EDITORIAL_GATE_REQUIRED and ITEM_DELETED are reasons in a publish's outcomes, not answers)
  EMPTY_RELEASE: { status: 422, when: 'publishing a release with no items' },
  ALREADY_PUBLISHED: { status: 409, when: 'publishing a release that is published' },
  RELEASE_IMMUTABLE: { status: 409, when: 'editing the items of a published release' },
  ITEM_NOT_FOUND: { status: 404, when: 'a release item that does not exist in the site' },
  // Configuration manifests (the first three are reported in a dry-run's `errors`; as the error of a
  // refused apply they are 400s)
  UNSUPPORTED_MANIFEST_VERSION: { status: 400, when: 'a manifest whose version is not svc.config@v1' },
  DANGLING_REFERENCE: { status: 400, when: 'a manifest field or relation naming an unknown collection' },
  DUPLICATE_KEY: { status: 400, when: 'a manifest listing a collection, field or setting twice' },
  DESTRUCTIVE_BLOCKED: { status: 409, when: 'a destructive apply without allowDestructive=true' },
  // Change feed and push
  CURSOR_EXPIRED: { status: 410, when: 'a change-feed cursor past retention' },
  ACK_REGRESSION: { status: 409, when: 'a checkpoint rewind' },
  PUSH_NOT_CONFIGURED: { status: 404, when: 'no public push key is configured' },
  DELIVERY_FAILED: { status: 502, when: 'a send to an outside service failed (an email relay refused the message)' },
  GRAPH_DANGLING_EDGE: { status: 400, when: 'an active flow has an edge naming a node that is not in its graph (`extensions.nodeId`, `extensions.edge`)' },
  GRAPH_CYCLE: { status: 400, when: 'an active flow’s edges loop (`extensions.nodeId` is on the loop)' },
  GRAPH_NO_ENTRY: { status: 400, when: 'an active flow has no node without an incoming edge' },
  GRAPH_UNKNOWN_OPERATION: { status: 400, when: 'an active flow has a node whose operation is not registered (`extensions.nodeId`)' },
  CRON_INVALID: { status: 400, when: 'a schedule flow’s cron is not five valid fields' },
  CRON_REQUIRED: { status: 400, when: 'activating a schedule flow without a cron' },
  WEBHOOK_NOT_CONFIGURED: { status: 401, when: 'a webhook flow has no token' },
  EMAIL_NOT_CONFIGURED: { status: 503, when: 'email degraded mode: no SMTP_URL, nothing is sent or recorded' },
  TRANSLATION_PROVIDER_FAILED: { status: 502, when: 'the configured translation provider refused, failed or timed out (docs/translation.md)' },
  AI_PROVIDER_FAILED: {
    status: 502,
    when: 'the copilot’s OpenAI-compatible provider (SVC_AI_BASE_URL) failed, timed out (SVC_AI_TIMEOUT_MS), or answered a tool call that names no skill offered or whose arguments are not a JSON object (docs/ai-copilot.md)',
  },
  GIT_PROVIDER_FAILED: {
    status: 502,
    when: 'the git hosting provider refused (a bad token, a repository it does not show), failed or timed out (SVC_GIT_TIMEOUT_MS); `extensions.providerStatus` (docs/integrations.md)',
  },
  GIT_OAUTH_NOT_CONFIGURED: { status: 409, when: 'OAuth with a git provider whose SVC_GIT_<PROVIDER>_CLIENT_ID and _CLIENT_SECRET are not set (docs/integrations.md)' },
  AGENT_FROZEN: { status: 423, when: 'an agent’s skill call matches an active kill-switch freeze (`extensions.freezeId`, `extensions.scope`; docs/agents.md)' },
  // Regulated content (docs/privacy.md)
  ENCRYPTION_KEY_REQUIRED: { status: 400, when: 'credentials to store sealed, and no key of the key ring can seal them (the site’s active key has no bytes)' },
  KEY_NOT_PROVISIONED: { status: 422, when: 'rotating to, or rewrapping from, a key whose bytes SVC_ENCRYPTION_KEYS does not hold' },
  DECRYPTION_FAILED: { status: 500, when: 'a sealed value would not open (a wrong key, tampered bytes); audited, never a placeholder' },
  // Limits
  RATE_LIMITED: { status: 429, when: 'a limit was exceeded; honour Retry-After' },
  RATE_LIMIT_UNAVAILABLE: { status: 503, when: 'the limiter cache is down and SVC_RATE_LIMIT_FAIL_CLOSED=true' },
  SERVICE_UNAVAILABLE: { status: 503, when: 'a part the request needs (`extensions.dependency`: database, queue) cannot be reached now; honour Retry-After' },
  INTERNAL: { status: 500, when: 'an unexpected failure (the log has the rest)' },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The status of VALIDATION_FAILED on the routes the spec answers with 422 (releases, issuers, ...). */
export const UNPROCESSABLE_STATUS = 422;
