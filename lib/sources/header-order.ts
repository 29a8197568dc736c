import type { Headers, Origin } from "./connector";

// A message's headers in the order the broker gave them. An origin is stored as jsonb, which keeps an object's
// keys in its own order (shorter first), not the broker's: `traceparent, x-tenant` came back `x-tenant,
// traceparent`. Arrays keep their order in jsonb, so the names go beside the headers as `headerOrder` when a
// pulled message is stored, and everything that reads headers back (the replay to origin, the record page)
// puts them in that order again. Pure.

/** The origin to store: its headers' names in the broker's order beside them. */
export function withHeaderOrder(origin: Origin): Origin {
  return { ...origin, headerOrder: Object.keys(origin.headers) };
}

/**
 * The headers in the recorded order. Names the order does not hold (an origin stored before it was kept) follow
 * in the order they come. One limit is JavaScript's: names that are array indexes ("0", "42") always come first.
 */
export function orderedHeaders(headers: Headers, order: readonly string[] | undefined): Headers {
  if (!order) return headers;
  const out: Headers = {};
  const put = (name: string) => {
    const value = headers[name];
    if (value === undefined || Object.hasOwn(out, name)) return;
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const name of order) if (Object.hasOwn(headers, name)) put(name);
  for (const name of Object.keys(headers)) put(name);
  return out;
}

/** The origin read back from storage, its headers in the broker's order. */
export function inBrokerOrder<T extends Origin>(origin: T): T {
  return { ...origin, headers: orderedHeaders(origin.headers, origin.headerOrder) };
}
