// Counts in words: "1 record", "2 records", "1,204 records". Every count shown to a person goes through here,
// so no page or command says "1 records".

/** `noun` for one, `plural` (default: `noun` + "s") for any other count, 0 included. */
export function plural(n: number, noun: string, pluralNoun = `${noun}s`): string {
  return n === 1 ? noun : pluralNoun;
}

/** The count (grouped by thousands, as in English) and its noun. */
export function countOf(n: number, noun: string, pluralNoun?: string): string {
  return `${n.toLocaleString("en")} ${plural(n, noun, pluralNoun)}`;
}
