import { SelectField } from '../../../kit/fields';
import { pageSizes } from './address';
import type { RecordsView } from './view';

const sizes = pageSizes.map(String);

/** Previous and next page, where the reader is, and the page size. */
export function Pager({ view }: { view: RecordsView }) {
  const { page, setPage, pages, pageSize, setPageSize } = view;
  return (
    <nav className="pager" aria-label="Pages of records">
      <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages}>
        Next page
      </button>
      <SelectField
        label="Records per page"
        value={String(pageSize)}
        options={sizes.map((size): [string, string] => [size, size])}
        onChange={(value) => setPageSize(Number(value))}
      />
    </nav>
  );
}
