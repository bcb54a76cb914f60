import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';

const listedSession = {
  type: 'object',
  required: ['id', 'kind', 'created_at', 'last_used_at', 'client_ip', 'user_agent', 'current'],
  properties: {
    id: { type: 'string', description: 'A refresh family (uuid) or the SHA-256 of a browser session id' },
    kind: { type: 'string', enum: ['refresh', 'browser'] },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: 'string', format: 'date-time' },
    client_ip: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    current: { type: 'boolean', description: 'The session of this request' },
  },
  additionalProperties: false,
} as const;

export const sessionIdParams = {
  type: 'object',
  required: ['session_id'],
  properties: {
    session_id: {
      type: 'string',
      pattern: '^([0-9a-f]{64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$',
    },
  },
  additionalProperties: false,
} as const;

const platform = { group: 'auth', scope: 'platform' } as const;

/** One's own sessions (issue 39, item 9): list, end one, end all the others. */
export const sessionRoutes = [
  {
    ...platform,
    operationId: 'listSessions',
    permission: 'authenticated',
    method: 'GET',
    path: '/api/auth/sessions/',
    summary:
      "The caller's live sessions: refresh-token families and browser sessions, newest first (at most 100)",
    responses: {
      200: json('The sessions', {
        type: 'object',
        required: ['results'],
        properties: { results: { type: 'array', items: listedSession } },
        additionalProperties: false,
      } as const),
      ...errors(401),
    },
  },
  {
    ...platform,
    operationId: 'endSession',
    permission: 'authenticated',
    method: 'DELETE',
    path: '/api/auth/sessions/{session_id}/',
    params: sessionIdParams,
    summary:
      "End one of the caller's sessions: its refresh token (and those after it) or its cookie stops working",
    responses: { 204: empty('The session is ended'), ...errors(400, 401, 404) },
  },
  {
    ...platform,
    operationId: 'endOtherSessions',
    permission: 'authenticated',
    method: 'POST',
    path: '/api/auth/sessions/end-others/',
    summary: 'End every session of the caller but the one of this request',
    responses: {
      200: json('How many sessions ended', {
        type: 'object',
        required: ['ended'],
        properties: { ended: { type: 'integer', minimum: 0 } },
        additionalProperties: false,
      } as const),
      ...errors(401),
    },
  },
] as const satisfies readonly RouteDef[];
