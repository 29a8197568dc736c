// The pieces of the app's data tables: a bordered frame that scrolls sideways on a narrow window, a header row
// built from a list of columns, and a body with a rule between rows. Every class is written out whole: Tailwind
// finds class names only as literal strings in the sources.

/** A column of a header row. `srOnly`: the label is read out but not shown (an actions column). */
export interface Column {
  label: string;
  align?: "right";
  srOnly?: boolean;
  /** classes before the cell's own padding, such as a width */
  className?: string;
  title?: string;
}

/**
 * How a header row looks where it stands:
 * - framed: a table of its own in a FramedTable, a shaded header;
 * - panel: a table inside a bordered panel (settings), the header unshaded;
 * - compact: a small table of details inside a section, headers as written in the table's own small text;
 * - compact-narrow: the same with a narrower gap between columns (the payload diff's).
 * `cell` pads each header cell but the last, which has no gap to its right.
 */
const LOOKS = {
  framed: {
    row: "border-b border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800 text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400",
    cell: "px-3 py-2",
    last: "px-3 py-2",
  },
  panel: {
    row: "border-b border-slate-200 dark:border-slate-700 text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400",
    cell: "py-1.5 pr-3",
    last: "py-1.5",
  },
  compact: { row: "text-slate-500 dark:text-slate-400", cell: "py-1 pr-3 font-medium", last: "py-1 font-medium" },
  "compact-narrow": { row: "text-slate-500 dark:text-slate-400", cell: "py-1 pr-2 font-medium", last: "py-1 font-medium" },
} as const;

export type HeaderLook = keyof typeof LOOKS;

/**
 * A table in a bordered frame that scrolls sideways when its columns do not fit. `after`: shown in the frame below
 * the table. `relative`: a visually hidden header label (sr-only is position: absolute) escapes an overflow box
 * that is not its containing block, and would widen the page by as much as the table is wider than the window.
 */
export function FramedTable({ children, after }: { children: React.ReactNode; after?: React.ReactNode }) {
  return (
    <div className="relative overflow-x-auto rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
      <table className="w-full text-left text-sm">{children}</table>
      {after}
    </div>
  );
}

/** The classes of one header cell: the column's own, the look's padding, then its alignment. */
export function headerCellClass(column: Column, look: HeaderLook, last: boolean): string {
  const padding = last ? LOOKS[look].last : LOOKS[look].cell;
  return [column.className, padding, column.align === "right" ? "text-right" : undefined].filter(Boolean).join(" ");
}

/** A thead of one row, a `<th scope="col">` per column; a string is a column with only a label. */
export function ColumnHeaders({ columns, look = "framed" }: { columns: readonly (string | Column)[]; look?: HeaderLook }) {
  return (
    <thead className={LOOKS[look].row}>
      <tr>
        {columns.map((spec, i) => {
          const c: Column = typeof spec === "string" ? { label: spec } : spec;
          return (
            <th key={c.label} scope="col" className={headerCellClass(c, look, i === columns.length - 1)} title={c.title}>
              {c.srOnly ? <span className="sr-only">{c.label}</span> : c.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** A tbody with a thin rule between rows. `className`: added to the body, such as a font for every cell. */
export function DividedBody({ children, className }: { children: React.ReactNode; className?: string }) {
  return (
    <tbody
      className={
        className ? `divide-y divide-slate-100 dark:divide-slate-800 ${className}` : "divide-y divide-slate-100 dark:divide-slate-800"
      }
    >
      {children}
    </tbody>
  );
}
