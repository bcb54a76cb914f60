import { useState } from 'react';
import { TextField } from '../../../kit/fields';
import type { RecordsView } from './view';

/** An excerpt of the API (`<b>` around the matches, the rest text) as React nodes: never set as HTML. */
export function highlighted(excerpt: string) {
  return excerpt.split(/(<b>.*?<\/b>)/).map((part, index) => {
    const match = /^<b>(.*)<\/b>$/.exec(part);
    return match ? <mark key={index}>{match[1]}</mark> : <span key={index}>{part}</span>;
  });
}

/** Full-text search of a table with a search vector: combined with the filters, best matches first. */
export function SearchPanel({ view }: { view: RecordsView }) {
  const { asked, setAsked, query, total, records } = view;
  const [searchText, setSearchText] = useState(asked);
  return (
    <div className="card">
      <form
        className="filters"
        aria-label="Full-text search"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(searchText.trim());
        }}
      >
        <TextField
          label="Search text"
          value={searchText}
          onChange={setSearchText}
          hint="Combines with the filters below; best matches first unless a column is sorted."
        />
        <button type="submit">Search</button>
        {asked && (
          <button
            type="button"
            onClick={() => {
              setAsked('');
              setSearchText('');
            }}
          >
            Clear search
          </button>
        )}
      </form>
      {asked && query.data && !query.isPlaceholderData && (
        <>
          <p aria-live="polite" className="status">
            {total} match{total === 1 ? '' : 'es'} for “{asked}”, best first
          </p>
          <ol className="hits">
            {records.map((hit, index) => (
              <li key={index}>{highlighted(String(hit.excerpt ?? ''))}</li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
