import type { Metadata } from "next";
import Link from "next/link";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";

export const metadata: Metadata = { title: "Not allowed" };
export const dynamic = "force-dynamic";

/** Where requirePagePrincipal sends a signed-in user whose role lacks a page's permission. */
export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const principal = await requirePagePrincipal(undefined, { next: "/" });
  const raw = (await searchParams).permission;
  const permission = PERMISSIONS.find((p) => p === raw);

  return (
    <section
      aria-labelledby="forbidden-heading"
      className="mx-auto mt-16 max-w-lg rounded border border-amber-200 dark:border-amber-800 bg-amber-50 dark:bg-amber-950/40 p-6"
    >
      <h1 id="forbidden-heading" className="mb-2 text-lg font-semibold text-amber-900 dark:text-amber-100">
        403 · Not allowed
      </h1>
      <p className="text-sm text-amber-900 dark:text-amber-100">
        Your role <strong>{principal.role}</strong> does not include
        {permission ? (
          <>
            {" "}
            the permission <code className="rounded bg-white/60 dark:bg-slate-900/60 px-1">{permission}</code>
          </>
        ) : (
          " the permission this page needs"
        )}
        . Ask an administrator if you need it.
      </p>
      <p className="mt-4 text-sm">
        <Link href="/settings" className="text-slate-700 dark:text-slate-300 underline hover:text-slate-900 dark:hover:text-slate-100">
          Your account and API tokens
        </Link>
      </p>
    </section>
  );
}
