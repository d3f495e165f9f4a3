import * as t from 'io-ts';
import { API_ERRORS, json, type Operation, type Parameters, type Schemas } from '../operations';

/** The operations of ./mcp.ts: the MCP server's Streamable HTTP endpoint (docs/mcp.md). */

/** A JSON-RPC 2.0 message of MCP, or a batch of them: the protocol's own schema says the rest. */
const JsonRpcMessage = t.type({ jsonrpc: t.literal('2.0') }, 'JsonRpcMessage');
const McpBody = t.union([JsonRpcMessage, t.array(JsonRpcMessage)], 'McpMessage');

const SESSION =
  'A session starts with an `initialize` request without the header; its answer gives the session id in the `Mcp-Session-Id` header, which every later ' +
  'request of the session sends. Only the key that started a session may use it (404 for any other, or once it has ended: ' +
  'metadata.reason "mcp_session_unknown").';

export const MCP_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/mcp',
    operationId: 'mcpMessage',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'MCP: send JSON-RPC messages (Streamable HTTP transport)',
    description:
      "The Model Context Protocol's Streamable HTTP transport: prompts (the workspace's presets, rendered by the resolve), resources " +
      '(presets://{slug}, presets://{slug}/versions/{n}) and the resolve tool. ' +
      SESSION +
      ' Past MCP_MAX_SESSIONS_PER_KEY or MCP_MAX_SESSIONS open sessions a new one is a 429.',
    parameters: ['Mcp-Session-Id'],
    requestBody: 'McpMessage',
    answers: {
      '200': {
        description: 'The JSON-RPC answer (a list of answers for a batch); a body of notifications or answers only gets a 202.',
        content: json({ type: ['object', 'array'] }),
      },
      '202': { description: 'Accepted: the message was a notification or an answer.' },
    },
    errors: [...API_ERRORS, '404', '413', '415', '503'],
  },
  {
    method: 'get',
    path: '/mcp',
    operationId: 'mcpNotifications',
    tag: 'Presets',
    scope: 'presets:read',
    summary: "MCP: the session's notifications (server-sent events)",
    description:
      "The session's stream of server-initiated messages: notifications/prompts/list_changed and notifications/resources/list_changed " +
      'once a change to the workspace is in the read model. ' +
      SESSION,
    parameters: ['Mcp-Session-Id'],
    answers: {
      '200': {
        description: 'A server-sent event stream of JSON-RPC notifications.',
        content: { 'text/event-stream': { type: 'string', description: 'Frames of `event: message`, `data: <JSON-RPC message>`.' } },
      },
    },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'delete',
    path: '/mcp',
    operationId: 'mcpEndSession',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'MCP: end the session',
    description: 'Ends the session named by Mcp-Session-Id: its notification stream closes, and a later request naming it is a 404.',
    parameters: ['Mcp-Session-Id'],
    answers: { '200': { description: 'The session ended.' } },
    errors: [...API_ERRORS, '404'],
  },
];

export const MCP_PARAMETERS: Parameters = {
  'Mcp-Session-Id': {
    name: 'Mcp-Session-Id',
    in: 'header',
    description: 'The MCP session (absent only on the initialize request that starts one).',
    schema: { type: 'string' },
  },
};

export const MCP_SCHEMAS: Schemas = [
  ['JsonRpcMessage', JsonRpcMessage],
  ['McpMessage', McpBody],
];
