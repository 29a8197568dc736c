import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import type { Principal } from "@/lib/auth/principal";
import { SignOutButton } from "./sign-out-button";

// The header's right-hand side: who is signed in (e-mail, role), settings and sign-out; or a sign-in link.

export function UserMenu({ principal }: { principal: Principal | null }) {
  if (!principal) {
    return (
      <Link href="/sign-in" className="text-slate-600 dark:text-slate-300 hover:text-slate-900 dark:hover:text-slate-100">
        Sign in
      </Link>
    );
  }
  return (
    <div className="flex items-center gap-3">
      <Link
        href="/settings"
        className="text-slate-700 dark:text-slate-300 hover:text-slate-900 dark:hover:text-slate-100"
        title="Your account and API tokens"
      >
        <span className="hidden lg:inline">{principal.email}</span>
        <span className="lg:hidden">Account</span>
      </Link>
      <Badge tone="slate">{principal.role}</Badge>
      <SignOutButton />
    </div>
  );
}
