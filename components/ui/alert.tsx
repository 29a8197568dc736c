// The two ways a form or panel answers: an error read out at once (role=alert) in a red box, and a status line
// read out politely (role=status) after an action went through.

export const ERROR_BOX =
  "rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 px-3 py-2 text-sm text-red-800 dark:text-red-200";

/** An error in a red box, announced as it appears. */
export function ErrorAlert({ children }: { children: React.ReactNode }) {
  return (
    <p role="alert" className={ERROR_BOX}>
      {children}
    </p>
  );
}

/** What an action did, announced politely. */
export function StatusLine({ children }: { children: React.ReactNode }) {
  return (
    <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
      {children}
    </p>
  );
}
