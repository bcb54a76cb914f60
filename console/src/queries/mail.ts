import { useQuery } from '@tanstack/react-query';
import { ApiError } from './client';

/**
 * The local outbox (`GET /api/local/mail/`): a route of the local runtime only, for superusers, so it is in no
 * OpenAPI document and the typed client does not know it; this module is its one caller. The cloud has no such
 * route: its 404 means "no Mail view here".
 */
export interface OutboxMessage {
  id: string;
  from: string;
  to: string;
  subject: string;
  date: string;
  text: string;
  truncated: boolean;
}
export interface Outbox {
  count: number;
  results: OutboxMessage[];
}

export const mailPath = '/api/local/mail/';

async function readOutbox(): Promise<Outbox | null> {
  const response = await fetch(new URL(mailPath, location.origin), {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  if (response.status === 404) return null;
  const body = (await response.json().catch(() => ({}))) as { detail?: unknown };
  if (!response.ok)
    throw new ApiError('detail', {
      status: response.status,
      message: typeof body.detail === 'string' ? body.detail : `The outbox answered ${response.status}.`,
      requestId: response.headers.get('x-request-id') ?? undefined,
      body,
    });
  return body as Outbox;
}

/** The outbox's newest messages, newest first; null where there is no outbox (the cloud). */
export function useOutbox(enabled: boolean) {
  return useQuery({ queryKey: ['local-mail'], enabled, queryFn: readOutbox });
}
