import Link from "next/link";
import { unstable_rethrow } from "next/navigation";
import { can, type Permission } from "@/lib/auth/permissions";
import { type Principal } from "@/lib/auth/principal";
import { getPagePrincipal } from "@/lib/api/page-principal";
import { UserMenu } from "./user-menu";

// The header's links and user menu, read from one session lookup: a page shows in the header only to roles
// that may open it (a producer, who ingests and reads only what it sent, sees no triage pages it would be refused).

const PAGES: readonly { href: string; label: string; permission: Permission }[] = [
  { href: "/dead-letters", label: "Dead letters", permission: "dead_letters:read" },
  { href: "/lookup", label: "Lookup", permission: "dead_letters:read" },
  { href: "/groups", label: "Groups", permission: "dead_letters:read" },
  { href: "/quarantine", label: "Quarantine", permission: "dead_letters:read" },
  { href: "/rules", label: "Rules", permission: "dead_letters:read" },
  { href: "/replays", label: "Replays", permission: "replays:read" },
  { href: "/sources", label: "Sources", permission: "sources:read" },
  { href: "/alerts", label: "Alerts", permission: "dead_letters:read" },
  { href: "/audit", label: "Audit log", permission: "audit:read" },
  { href: "/producer", label: "My records", permission: "dead_letters:read_own" },
  { href: "/import", label: "Import", permission: "dead_letters:ingest" },
];

export async function SiteNav() {
  let principal: Principal | null = null;
  try {
    principal = await getPagePrincipal();
  } catch (err) {
    unstable_rethrow(err); // Next's own control flow (dynamic rendering, redirects) must pass through
    // The header must not take the page down (database restarting); the page's own check still applies.
    console.error("[auth] header: could not read the session", err);
  }
  const role = principal?.role;
  const pages = role ? PAGES.filter((p) => can(role, p.permission)) : [];
  return (
    <>
      {pages.map((p) => (
        <Link key={p.href} href={p.href} className="text-slate-600 dark:text-slate-300 hover:text-slate-900 dark:hover:text-slate-100">
          {p.label}
        </Link>
      ))}
      <div className="ml-auto">
        <UserMenu principal={principal} />
      </div>
    </>
  );
}
