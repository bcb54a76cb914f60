import { useState } from 'react';

/** The records chosen for a bulk delete, by key. */
export function useSelection() {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** Adds or takes out some keys. */
  const mark = (ids: readonly string[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  return { selected, setSelected, mark };
}

export type Selection = ReturnType<typeof useSelection>;
