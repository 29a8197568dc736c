import type { Metadata } from "next";
import { ApiReference } from "@/components/api-reference/api-reference";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { openApiDocument } from "@/lib/api/route-operations";
import { ROUTE_MODULES } from "@/app/api/route-modules.generated";
import { referenceView } from "@/lib/api/reference-view";

export const metadata: Metadata = { title: "API reference" };
export const dynamic = "force-dynamic";

/** The document /api/openapi.json serves, rendered on the server: no script, no font or style from elsewhere. */
export default async function ApiReferencePage() {
  await requirePagePrincipal();
  return <ApiReference view={referenceView(openApiDocument(ROUTE_MODULES))} />;
}
