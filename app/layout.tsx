import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { SiteNav } from "@/components/auth/site-nav";
import { Providers } from "@/components/providers";
import { THEME_SCRIPT } from "@/components/theme/theme-script";
import { ThemeToggle } from "@/components/theme/theme-toggle";
import { policyNonce } from "@/lib/net/content-security-policy";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Redrive", template: "%s · Redrive" },
  description: "Triage and paced replay of dead-lettered spatial and AFC events",
  icons: { icon: "/favicon.svg" },
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The theme script runs before paint, so it must carry this request's CSP nonce (proxy.ts) like Next's own.
  const nonce = policyNonce((await headers()).get("content-security-policy"));
  return (
    // The theme script sets <html>'s class and color-scheme before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen font-sans">
        <header className="border-b border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900">
          <nav
            aria-label="Main"
            // Below 1024 px the links wrap onto more lines rather than scrolling sideways, which put Sign out and
            // the theme switch off the screen.
            className="relative mx-auto flex max-w-[1600px] flex-wrap items-center gap-x-4 gap-y-1 whitespace-nowrap px-4 py-2 text-sm lg:h-12 lg:flex-nowrap lg:gap-4 lg:overflow-x-auto lg:py-0"
          >
            <Link href="/" className="font-semibold tracking-tight text-slate-900 dark:text-slate-100">
              Redrive
            </Link>
            <SiteNav />
            <ThemeToggle />
          </nav>
        </header>
        <main className="mx-auto max-w-[1600px] px-4 py-4">
          <Providers>{children}</Providers>
        </main>
      </body>
    </html>
  );
}
