"use client";

import Link from "next/link";
import { useEffect } from "react";

// A page that failed to render on the server (database restarting, an unexpected error): a message in the app's
// style and a retry, instead of Next's bare "Application error". Details stay in the server log; `digest`
// lets an operator find them there.
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <section
      role="alert"
      aria-labelledby="error-heading"
      className="mx-auto mt-16 max-w-lg rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-6"
    >
      <h1 id="error-heading" className="mb-2 text-lg font-semibold text-red-900 dark:text-red-100">
        Something went wrong
      </h1>
      <p className="text-sm text-red-900 dark:text-red-100">
        This page could not be loaded. Try again in a moment; if it keeps failing, the server log has the details.
      </p>
      {error.digest && (
        <p className="mt-2 text-xs text-red-800 dark:text-red-200">
          Reference: <code>{error.digest}</code>
        </p>
      )}
      <p className="mt-4 flex gap-4 text-sm">
        <button
          type="button"
          onClick={reset}
          className="rounded bg-slate-900 dark:bg-slate-100 px-3 py-1.5 font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300"
        >
          Try again
        </button>
        <Link href="/" className="self-center text-slate-700 dark:text-slate-300 underline hover:text-slate-900 dark:hover:text-slate-100">
          Back to the overview
        </Link>
      </p>
    </section>
  );
}
