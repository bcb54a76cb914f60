import { Fragment, useState } from 'react';
import { Failure } from '../kit/parts';
import { type OutboxMessage, useOutbox } from '../queries/mail';
import { pieces } from './mail-text';

/**
 * The local outbox (docs/console.md, "Mail"): the messages the platform wrote instead of sending them (invitations,
 * reset links), newest first, each readable with its links clickable, as a local stack's mail catcher shows them.
 * The local runtime's only; superusers only (the route decides).
 */
export function MailScreen() {
  const outbox = useOutbox(true);
  const [openId, setOpenId] = useState<string>();
  const messages = outbox.data?.results ?? [];
  const open = messages.find((message) => message.id === openId);
  return (
    <>
      <h1>Mail</h1>
      <p className="muted">
        The local outbox: what the platform would have e-mailed. Its links carry live tokens.
      </p>
      <div className="toolbar">
        <button type="button" onClick={() => outbox.refetch()} disabled={outbox.isFetching}>
          Refresh
        </button>
        {outbox.data && (
          <span className="status" aria-live="polite">
            {countText(outbox.data.count, messages.length)}
          </span>
        )}
      </div>
      {outbox.isLoading && <p>Loading…</p>}
      {outbox.error ? <Failure error={outbox.error} /> : null}
      {outbox.data === null && <p>This platform has no local outbox: its mail is sent.</p>}
      {messages.length > 0 && <MessageList messages={messages} openId={openId} onOpen={setOpenId} />}
      {open && <Message message={open} />}
    </>
  );
}

function countText(count: number, shown: number): string {
  if (count === 0) return 'No message yet.';
  const total = `${count} message${count === 1 ? '' : 's'}`;
  return shown < count ? `${total}; the newest ${shown} shown.` : `${total}.`;
}

function MessageList(props: {
  messages: OutboxMessage[];
  openId: string | undefined;
  onOpen: (id: string) => void;
}) {
  return (
    <ul className="mail-list" aria-label="Messages, newest first">
      {props.messages.map((message) => (
        <li key={message.id}>
          <button
            type="button"
            aria-pressed={message.id === props.openId}
            onClick={() => props.onOpen(message.id)}
          >
            <strong>{message.subject || '(no subject)'}</strong>
            <span>
              To {message.to} · {message.date ? new Date(message.date).toLocaleString() : 'undated'}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function Message({ message }: { message: OutboxMessage }) {
  return (
    <article className="panel mail-message" aria-labelledby="mail-subject">
      <h2 id="mail-subject">{message.subject || '(no subject)'}</h2>
      <dl className="record">
        <div>
          <dt>From</dt>
          <dd>{message.from}</dd>
        </div>
        <div>
          <dt>To</dt>
          <dd>{message.to}</dd>
        </div>
        <div>
          <dt>Date</dt>
          <dd>{message.date ? new Date(message.date).toLocaleString() : 'undated'}</dd>
        </div>
      </dl>
      <pre className="mail-text">
        {pieces(message.text).map((piece, i) => (
          <Fragment key={i}>
            {'link' in piece ? (
              <a href={piece.link} rel="noreferrer noopener">
                {piece.link}
              </a>
            ) : (
              piece.text
            )}
          </Fragment>
        ))}
      </pre>
      {message.truncated && <p className="muted">The message is longer: only its beginning is shown.</p>}
    </article>
  );
}
