/**
 * Walks every page of a list: `fetchPage(cursor)` gets one page, `read(page)` says which items it
 * holds and the cursor of the next page (undefined: this was the last). Pages are fetched lazily,
 * one at a time, as the caller consumes items.
 */
export async function* paginate<TPage, TItem, TCursor>(
  first: TCursor,
  fetchPage: (cursor: TCursor) => Promise<TPage>,
  read: (page: TPage, cursor: TCursor) => { items: readonly TItem[]; next: TCursor | undefined },
): AsyncGenerator<TItem, void, undefined> {
  let cursor: TCursor | undefined = first;
  while (cursor !== undefined) {
    const page = await fetchPage(cursor);
    const { items, next } = read(page, cursor);
    yield* items;
    // An empty page ends the walk even if the server says there is more: nothing to advance past.
    cursor = items.length === 0 ? undefined : next;
  }
}

/** Every item of an async iterable, in order (Array.fromAsync is Node 22+). */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) {
    items.push(item);
  }
  return items;
}
