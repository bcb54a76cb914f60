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

const textFields = ['id', 'from', 'to', 'subject', 'date', 'text'] as const;

function isMessage(value: unknown): value is OutboxMessage {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return (
    textFields.every((name) => typeof fields[name] === 'string') && typeof fields.truncated === 'boolean'
  );
}

/** The route's answer, checked: it is not in the API's document, so nothing else types it. */
function isOutbox(value: unknown): value is Outbox {
  if (typeof value !== 'object' || value === null) return false;
  const { count, results } = value as Record<string, unknown>;
  return typeof count === 'number' && Array.isArray(results) && results.every(isMessage);
}

function detailOf(body: unknown): string | undefined {
  const detail = typeof body === 'object' && body !== null ? Reflect.get(body, 'detail') : undefined;
  return typeof detail === 'string' ? detail : undefined;
}

async function readOutbox(): Promise<Outbox | null> {
  const response = await fetch(new URL(mailPath, location.origin), {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  if (response.status === 404) return null;
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok)
    throw new ApiError('detail', {
      status: response.status,
      message: detailOf(body) ?? `The outbox answered ${response.status}.`,
      requestId: response.headers.get('x-request-id') ?? undefined,
      body,
    });
  if (!isOutbox(body)) throw new Error('The outbox answered in a shape this console does not know.');
  return body;
}

/** The outbox's newest messages, newest first; null where there is no outbox (the cloud). */
export function useOutbox(enabled: boolean) {
  return useQuery({ queryKey: ['local-mail'], enabled, queryFn: readOutbox });
}
