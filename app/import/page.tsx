import type { Metadata } from "next";
import { ImportPanel } from "@/components/import/import-panel";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";

export const metadata: Metadata = { title: "Import" };
export const dynamic = "force-dynamic";

export default async function ImportPage() {
  const me = await requirePagePrincipal("dead_letters:ingest");
  // where the imported records are seen: a producer's own view, a reader's list
  const records = can(me.role, "dead_letters:read_own")
    ? { href: "/producer", label: "See your records" }
    : can(me.role, "dead_letters:read")
      ? { href: "/dead-letters", label: "Open the dead-letter list" }
      : null;
  return (
    <div className="max-w-5xl space-y-4">
      <h1 className="text-lg font-semibold">Import dead letters</h1>
      <ImportPanel records={records} />
    </div>
  );
}
