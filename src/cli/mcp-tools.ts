/**
 * Everything `formatbox mcp` needs for a tool call and not for `initialize`: its own bundle
 * (dist/cli-mcp-tools.js), loaded on the first tool call, so the server answers the handshake
 * having loaded only the MCP SDK.
 */
export { DEFAULT_LIMITS, resolveLimits } from '../config/limits.js';
export { mcpReply } from '../agents/shared/mcp-result.js';
export { createRequestHandler } from '../node/service/requests.js';
export { loadUserConfig } from '../node/service/user-config.js';
