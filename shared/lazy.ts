/**
 * A value made on its first use, then shared: for adapters whose SDK module a cold start should not load (a
 * `import()` inside `make` puts the module in a chunk of its own that loads on the first call). A failed `make` is
 * not remembered, so the next call tries again.
 */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    if (!value) {
      const made = make();
      value = made;
      made.catch(() => {
        if (value === made) value = undefined;
      });
    }
    return value;
  };
}
