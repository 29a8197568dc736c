import type { Metadata } from "next";
import Link from "next/link";
import { SiteNav } from "@/components/auth/site-nav";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Redrive", template: "%s · Redrive" },
  description: "Triage and paced replay of dead-lettered spatial and AFC events",
  icons: { icon: "/favicon.svg" },
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <header className="border-b border-slate-200 bg-white">
          <nav
            aria-label="Main"
            className="mx-auto flex h-12 max-w-[1600px] items-center gap-4 overflow-x-auto whitespace-nowrap px-4 text-sm lg:gap-6"
          >
            <Link href="/" className="font-semibold tracking-tight text-slate-900">
              Redrive
            </Link>
            <SiteNav />
          </nav>
        </header>
        <main className="mx-auto max-w-[1600px] px-4 py-4">
          <Providers>{children}</Providers>
        </main>
      </body>
    </html>
  );
}
