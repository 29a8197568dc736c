// Lists in words, as a sentence says them: "a, b or c".

/** "a", "a or b", "a, b or c" (no serial comma); "" for none. */
export function orList(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? "";
  return `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}
