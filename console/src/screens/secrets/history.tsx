import { actions, type HistoryEntry, historyPage } from './model';

/** A page of a secret's history, as shown. */
export interface HistoryShown {
  key: string;
  entries: HistoryEntry[];
  offset: number;
  total: number;
  hasNext: boolean;
}

/** Who changed a secret, what and when, 50 entries a page, newest first: never a value. */
export function HistoryPanel({
  history,
  onPage,
}: {
  history: HistoryShown;
  onPage: (offset: number) => void;
}) {
  return (
    <section aria-labelledby="history-title" className="card">
      <h2 id="history-title">History of {history.key}</h2>
      <p className="muted">Who changed what, when: values are never shown here.</p>
      <p className="status" aria-live="polite">
        {history.total === 0
          ? 'No entry.'
          : `Entries ${history.offset + 1}–${history.offset + history.entries.length} of ${history.total}, newest first.`}
      </p>
      <ol start={history.offset + 1}>
        {history.entries.map((entry) => (
          <li key={`${entry.timestamp}-${entry.action}`}>
            {new Date(entry.timestamp).toLocaleString()}: {actions[entry.action]} by {entry.user} (type{' '}
            {entry.secret_type}
            {entry.tags.length ? `, tags ${entry.tags.join(', ')}` : ''})
            {Object.keys(entry.changes).length ? `; changed: ${Object.keys(entry.changes).join(', ')}` : ''}
          </li>
        ))}
      </ol>
      <div className="pager">
        <button
          type="button"
          disabled={history.offset === 0}
          onClick={() => onPage(Math.max(0, history.offset - historyPage))}
        >
          Newer entries
        </button>
        <button
          type="button"
          disabled={!history.hasNext}
          onClick={() => onPage(history.offset + historyPage)}
        >
          Older entries
        </button>
      </div>
    </section>
  );
}

/** A secret's value: hidden until revealed (one read of that secret), hidden again on request. */
export function ValueCell({
  name,
  shown,
  onReveal,
  onHide,
}: {
  name: string;
  shown: string | undefined;
  onReveal: () => void;
  onHide: () => void;
}) {
  return shown !== undefined ? (
    <>
      <pre>{shown}</pre>
      <button type="button" onClick={onHide} aria-label={`Hide the value of ${name}`}>
        Hide
      </button>
    </>
  ) : (
    <button type="button" onClick={onReveal} aria-label={`Reveal the value of ${name}`}>
      Reveal
    </button>
  );
}
