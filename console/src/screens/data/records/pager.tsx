import { SelectField } from '../../../kit/fields';
import type { RecordsView } from './view';

const sizes = ['10', '20', '50', '100'] as const;

/** Previous and next page, where the reader is, and the page size. */
export function Pager({ view }: { view: RecordsView }) {
  const { page, setPage, pages, pageSize, setPageSize } = view;
  return (
    <nav className="pager" aria-label="Pages of records">
      <button type="button" onClick={() => setPage((current) => current - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" onClick={() => setPage((current) => current + 1)} disabled={page >= pages}>
        Next page
      </button>
      <SelectField
        label="Records per page"
        value={sizes.find((size) => size === String(pageSize)) ?? '20'}
        options={sizes.map((size) => [size, size] as const)}
        onChange={(value) => {
          setPageSize(Number(value));
          setPage(1);
        }}
      />
    </nav>
  );
}
