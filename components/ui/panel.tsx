// A titled section of a settings or producer page: a bordered white box whose heading names it for screen
// readers (aria-labelledby), an optional line saying what it is for, and an optional control beside the title.

export function Panel({
  id,
  title,
  description,
  aside,
  children,
}: {
  /** the heading's id is `${id}-heading` */
  id: string;
  title: React.ReactNode;
  description?: React.ReactNode;
  /** shown at the heading's right (a filter checkbox) */
  aside?: React.ReactNode;
  children: React.ReactNode;
}) {
  const heading = (
    <div>
      <h2 id={`${id}-heading`} className="text-sm font-semibold">
        {title}
      </h2>
      {description && <p className="text-xs text-slate-500 dark:text-slate-400">{description}</p>}
    </div>
  );
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className="space-y-3 rounded border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900"
    >
      {aside ? (
        <div className="flex items-baseline justify-between gap-2">
          {heading}
          {aside}
        </div>
      ) : (
        heading
      )}
      {children}
    </section>
  );
}
