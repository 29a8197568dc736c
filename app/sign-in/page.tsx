import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { safeNextPath } from "@/lib/auth/next-path";
import { getPagePrincipal } from "@/lib/api/page-principal";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).next;
  const next = safeNextPath(typeof raw === "string" ? raw : null);
  if (await getPagePrincipal()) redirect(next);

  return (
    <section
      aria-labelledby="sign-in-heading"
      className="mx-auto mt-16 max-w-sm rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 shadow-sm"
    >
      <h1 id="sign-in-heading" className="mb-1 text-lg font-semibold">
        Sign in to Redrive
      </h1>
      <p className="mb-4 text-sm text-slate-500 dark:text-slate-400">Accounts are created by an administrator.</p>
      <SignInForm next={next} />
    </section>
  );
}
