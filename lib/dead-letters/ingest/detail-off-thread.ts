import "server-only";
import type { MaskRules } from "../../masking/rules";
import { heavyDetailJsonFrom } from "../query/heavy-detail-read";
import { sharedNormalizePool } from "./normalize-pool";

/**
 * A heavy record's detail answer (GET /api/dead-letters/{id}) as UTF-8 JSON, read and built on the ingest
 * threads (the process's threads for heavy work) when there are any: the thread reads the row itself, so its
 * 24 MB of text never reach the thread that answers requests.
 */
export async function heavyDetailAnswer(databaseUrl: string, id: string, rules: MaskRules | null): Promise<Uint8Array<ArrayBuffer>> {
  const threads = sharedNormalizePool();
  if (threads) return threads.detailJson(databaseUrl, id, rules);
  return new TextEncoder().encode(await heavyDetailJsonFrom(databaseUrl, id, rules));
}
