import "server-only";
import type pg from "pg";
import { COMMON_WORD_SHARE } from "./where";

// The words on at least COMMON_WORD_SHARE of the records, from the most common lexemes ANALYZE keeps for
// dead_letter.search_doc (pg_stats). Read once every few minutes per process, not per search: the view's privilege
// checks and the anyarray's text round trip would cost every search as a subquery of the list's statement.
// Empty without statistics (a new or small table): every search then starts from the index.

const REFRESH_MS = 5 * 60_000;
const cached = globalThis as unknown as { __redriveCommonLexemes?: { at: number; lexemes: Promise<string[]> } };

export function commonLexemes(db: pg.Pool | pg.PoolClient, now = Date.now()): Promise<string[]> {
  const hit = cached.__redriveCommonLexemes;
  if (hit && now - hit.at < REFRESH_MS) return hit.lexemes;
  const lexemes = db
    .query<{ lexeme: string }>(
      `SELECT e.lexeme FROM pg_stats st,
         unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) AS e(lexeme, freq)
       WHERE st.schemaname = current_schema() AND st.tablename = 'dead_letter' AND st.attname = 'search_doc'
         AND e.lexeme IS NOT NULL AND e.freq >= $1`,
      [COMMON_WORD_SHARE],
    )
    .then((r) => r.rows.map((row) => row.lexeme));
  cached.__redriveCommonLexemes = { at: now, lexemes };
  // A failed read is not kept: the next search asks again.
  lexemes.catch(() => {
    if (cached.__redriveCommonLexemes?.lexemes === lexemes) delete cached.__redriveCommonLexemes;
  });
  return lexemes;
}

/** Forgets the cached list (tests, after ANALYZE). */
export function forgetCommonLexemes(): void {
  delete cached.__redriveCommonLexemes;
}
