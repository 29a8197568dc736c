import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { SsoSignInButton } from "@/components/auth/sso-sign-in-button";
import { currentSsoConfig } from "@/lib/auth/auth";
import { safeNextPath } from "@/lib/auth/next-path";
import { ssoErrorText } from "@/lib/auth/sso-errors";
import { getPagePrincipal } from "@/lib/api/page-principal";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : null);
  if (await getPagePrincipal()) redirect(next);
  const sso = await currentSsoConfig(new Date());
  const providerName = sso.provider?.name ?? null;
  // better-auth's OAuth callback comes back here with ?error=<code> when it refuses a sign-in.
  const refused =
    typeof params.error === "string" && params.error ? ssoErrorText(params.error, providerName ?? "the identity provider") : null;

  return (
    <section
      aria-labelledby="sign-in-heading"
      className="mx-auto mt-16 max-w-sm space-y-4 rounded border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-700 dark:bg-slate-900"
    >
      <div>
        <h1 id="sign-in-heading" className="mb-1 text-lg font-semibold text-slate-900 dark:text-slate-100">
          Sign in to Redrive
        </h1>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          {providerName
            ? `People sign in with ${providerName}; their groups there give their role here.`
            : "Accounts are created by an administrator."}
        </p>
      </div>
      {refused && (
        <div
          role="alert"
          className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          <p className="font-semibold">{refused.title}</p>
          <p>{refused.detail}</p>
        </div>
      )}
      {providerName && <SsoSignInButton provider={providerName} next={next} primary />}
      {sso.passwordSignIn ? (
        <>
          {providerName && <p className="text-center text-xs text-slate-500 dark:text-slate-400">or with an e-mail and password</p>}
          <SignInForm next={next} />
        </>
      ) : (
        <details className="text-sm text-slate-600 dark:text-slate-300">
          <summary className="cursor-pointer">Break-glass administrator</summary>
          <p className="my-2 text-xs text-slate-500 dark:text-slate-400">
            Password sign-in is turned off for everyone but the break-glass administrator.
          </p>
          <SignInForm next={next} />
        </details>
      )}
    </section>
  );
}
