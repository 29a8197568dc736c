// @mentions in a note's text. Pure and client-safe: the server resolves handles to users when a note is written,
// the page highlights them when it shows one.

/** `@handle`: a letter or digit, then letters, digits, dot, dash or underscore (an e-mail's local part). */
const MENTION = /(^|[^\w@.])@([\p{L}\p{N}][\p{L}\p{N}._-]*)/gu;

/** The handles a text mentions, lowercased, each once, without a trailing dot (end of a sentence). */
export function mentionHandles(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(MENTION)) out.add(m[2]!.replace(/[.]+$/, "").toLowerCase());
  return [...out];
}

/**
 * The handles a user answers to: their e-mail's local part, and their display name without spaces
 * ("Ann Lee" → "annlee"), both lowercased.
 */
export function handlesOf(user: { email: string; name: string }): string[] {
  const local = user.email.split("@")[0]!.toLowerCase();
  const name = user.name.replace(/\s+/g, "").toLowerCase();
  return name && name !== local ? [local, name] : [local];
}

/** Text cut into plain runs and the mentions among `handles` (lowercased), for highlighting. */
export function mentionSegments(text: string, handles: ReadonlySet<string>): { text: string; mention: boolean }[] {
  const out: { text: string; mention: boolean }[] = [];
  let at = 0;
  for (const m of text.matchAll(MENTION)) {
    const handle = m[2]!.replace(/[.]+$/, "");
    if (!handles.has(handle.toLowerCase())) continue;
    const start = m.index + m[1]!.length;
    if (start > at) out.push({ text: text.slice(at, start), mention: false });
    out.push({ text: `@${handle}`, mention: true });
    at = start + 1 + handle.length;
  }
  if (at < text.length) out.push({ text: text.slice(at), mention: false });
  return out;
}

/** Two lists of mentions (records' notes, groups' notes) as one: counts added, the newest `limit` first. */
export function mergeMentions<T extends { createdAt: string }>(
  a: { count: number; items: T[] },
  b: { count: number; items: T[] },
  limit: number,
): { count: number; items: T[] } {
  const items = [...a.items, ...b.items].sort((x, y) => (x.createdAt < y.createdAt ? 1 : x.createdAt > y.createdAt ? -1 : 0));
  return { count: a.count + b.count, items: items.slice(0, limit) };
}
