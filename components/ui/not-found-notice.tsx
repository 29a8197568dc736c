import Link from "next/link";

/** The body of a 404 page: what was not found, why that may be, and where to go instead. */
export function NotFoundNotice({
  title,
  children,
  back,
}: {
  title: string;
  children: React.ReactNode;
  back: { href: string; label: string };
}) {
  return (
    <section
      aria-labelledby="not-found-heading"
      className="mx-auto mt-16 max-w-lg rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6"
    >
      <h1 id="not-found-heading" className="mb-2 text-lg font-semibold text-slate-900 dark:text-slate-100">
        404 · {title}
      </h1>
      <div className="space-y-2 text-sm text-slate-700 dark:text-slate-300 [&_code]:whitespace-nowrap">{children}</div>
      <p className="mt-4 flex gap-4 text-sm">
        <Link href={back.href} className="font-medium text-sky-700 dark:text-sky-300 underline hover:text-sky-900 dark:hover:text-sky-100">
          {back.label}
        </Link>
        <Link href="/lookup" className="text-slate-600 dark:text-slate-300 underline hover:text-slate-900 dark:hover:text-slate-100">
          Look up a key, hash or device
        </Link>
      </p>
    </section>
  );
}
