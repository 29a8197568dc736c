import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { IngestEndpoints } from "@/components/producer/ingest-endpoints";
import { OwnRecords } from "@/components/producer/own-records";
import { TokensPanel } from "@/components/settings/tokens-panel";
import { forReader } from "@/lib/api/page-data";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { listApiTokens } from "@/lib/auth/tokens";
import { getDb } from "@/lib/db/client";
import { OwnRecordsQuerySchema } from "@/lib/dead-letters/contract/own-records";
import { listOwnRecords } from "@/lib/dead-letters/query/own-records";
import { configuredMaskRules } from "@/lib/masking/config";

export const metadata: Metadata = { title: "My records" };
export const dynamic = "force-dynamic";

/** The origin the browser used, for the copyable example (behind a proxy: its forwarded host and scheme). */
async function pageOrigin(): Promise<string> {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:3000";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? "http";
  return `${proto}://${host}`;
}

export default async function ProducerPage() {
  const me = await requirePagePrincipal("dead_letters:read_own");
  const { pool } = getDb();
  const [records, tokens, origin] = await Promise.all([
    listOwnRecords(pool, me.userId, OwnRecordsQuerySchema.parse({}), configuredMaskRules()),
    listApiTokens(pool, me.userId),
    pageOrigin(),
  ]);
  return (
    <div className="max-w-6xl space-y-4">
      <div>
        <h1 className="text-lg font-semibold">My records</h1>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          What your tokens sent and what became of it.{" "}
          <Link href="/import" className="text-blue-700 underline dark:text-blue-400">
            Import a file
          </Link>{" "}
          from the browser, or send records with the API (
          <Link href="/api-reference" className="text-blue-700 underline dark:text-blue-400">
            API reference
          </Link>
          ).
        </p>
      </div>
      <OwnRecords initial={forReader(records)} />
      <IngestEndpoints origin={origin} />
      <TokensPanel initialTokens={tokens} />
    </div>
  );
}
