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
    <section aria-labelledby="not-found-heading" className="mx-auto mt-16 max-w-lg rounded border border-slate-200 bg-white p-6">
      <h1 id="not-found-heading" className="mb-2 text-lg font-semibold text-slate-900">
        404 · {title}
      </h1>
      <div className="space-y-2 text-sm text-slate-700 [&_code]:whitespace-nowrap">{children}</div>
      <p className="mt-4 flex gap-4 text-sm">
        <Link href={back.href} className="font-medium text-sky-700 underline hover:text-sky-900">
          {back.label}
        </Link>
        <Link href="/lookup" className="text-slate-600 underline hover:text-slate-900">
          Look up a key, hash or device
        </Link>
      </p>
    </section>
  );
}
