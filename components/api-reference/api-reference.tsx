import type { ReferenceOperation, ReferenceView } from "@/lib/api/reference-view";

// Redrive's API reference, from its OpenAPI document: one section per tag, one entry per operation (method, path,
// who may call it, parameters, body, responses), schemas as JSON under a disclosure. Server-rendered HTML: it runs
// under the strict script policy without a line of client code.

const METHOD_CLASS: Record<string, string> = {
  GET: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100",
  POST: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  PUT: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  PATCH: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  DELETE: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
};

function SchemaJson({ label, schema }: { label: string; schema: Record<string, unknown> }) {
  return (
    <details className="text-xs">
      <summary className="cursor-pointer text-slate-600 dark:text-slate-300">{label}</summary>
      <pre className="mt-1 max-h-96 overflow-auto rounded bg-slate-100 p-2 font-mono text-[11px] text-slate-900 dark:bg-slate-800 dark:text-slate-100">
        {JSON.stringify(schema, null, 2)}
      </pre>
    </details>
  );
}

function Operation({ op }: { op: ReferenceOperation }) {
  return (
    <article id={op.id} aria-labelledby={`${op.id}-title`} className="space-y-2 border-t border-slate-200 py-3 dark:border-slate-700">
      <h3 id={`${op.id}-title`} className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`rounded px-1.5 py-0.5 font-mono text-xs font-semibold ${METHOD_CLASS[op.method] ?? ""}`}>{op.method}</span>{" "}
        <code className="font-mono font-semibold">{op.path}</code>{" "}
        <span className="font-normal text-slate-700 dark:text-slate-300">{op.summary}</span>
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {op.public ? (
          "Anyone, without credentials"
        ) : op.permission ? (
          <>
            Needs <code>{op.permission}</code>
          </>
        ) : (
          "Signed in"
        )}
      </p>
      {op.description && <p className="max-w-4xl text-xs text-slate-700 dark:text-slate-300">{op.description}</p>}
      {op.parameters.length > 0 && (
        <table className="text-left text-xs">
          <caption className="sr-only">
            Parameters of {op.method} {op.path}
          </caption>
          <thead className="text-slate-500 dark:text-slate-400">
            <tr>
              <th scope="col" className="pr-3 font-medium">
                Parameter
              </th>
              <th scope="col" className="pr-3 font-medium">
                In
              </th>
              <th scope="col" className="pr-3 font-medium">
                Type
              </th>
              <th scope="col" className="font-medium">
                Description
              </th>
            </tr>
          </thead>
          <tbody>
            {op.parameters.map((p) => (
              <tr key={`${p.in}-${p.name}`} className="align-top">
                <td className="pr-3 font-mono">
                  {p.name}
                  {p.required && (
                    <span className="text-red-700 dark:text-red-400" title="required">
                      {" "}
                      *
                    </span>
                  )}
                </td>
                <td className="pr-3">{p.in}</td>
                <td className="max-w-64 pr-3 font-mono break-words">{p.type}</td>
                <td className="max-w-xl">{p.description ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {op.body && (
        <div className="space-y-1 text-xs">
          <p>
            Body:{" "}
            {op.body.contentTypes.map((t) => (
              <code key={t} className="mr-1">
                {t}
              </code>
            ))}
            {op.body.description && <span className="text-slate-600 dark:text-slate-300"> — {op.body.description}</span>}
          </p>
          {op.body.schema && <SchemaJson label="Request schema" schema={op.body.schema} />}
        </div>
      )}
      <ul className="space-y-1 text-xs">
        {op.responses.map((r) => (
          <li key={r.status}>
            <span className="font-mono font-semibold">{r.status}</span> {r.description}
            {r.schema && <SchemaJson label={`${r.status} response schema`} schema={r.schema} />}
          </li>
        ))}
      </ul>
    </article>
  );
}

const tagId = (name: string) => name.replace(/\s+/g, "-");

export function ApiReference({ view }: { view: ReferenceView }) {
  return (
    <div className="max-w-6xl space-y-4 text-slate-900 dark:text-slate-100">
      <div className="space-y-1">
        <h1 className="text-lg font-semibold">API reference</h1>
        <p className="max-w-4xl text-sm text-slate-600 dark:text-slate-300">{view.description}</p>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {view.title}, version {view.version}. The machine-readable description:{" "}
          <a href="/api/openapi.json" className="text-blue-700 underline dark:text-blue-400">
            /api/openapi.json
          </a>{" "}
          (OpenAPI 3.1).
        </p>
      </div>
      <nav aria-label="API sections" className="flex flex-wrap gap-2 text-xs">
        {view.tags.map((t) => (
          <a
            key={t.name}
            href={`#tag-${tagId(t.name)}`}
            className="rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800"
          >
            {t.name} ({t.operations.length})
          </a>
        ))}
        <a
          href="#schemas"
          className="rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800"
        >
          schemas
        </a>
      </nav>
      {view.tags.map((t) => (
        <section
          key={t.name}
          id={`tag-${tagId(t.name)}`}
          aria-labelledby={`tag-${tagId(t.name)}-heading`}
          className="rounded border border-slate-200 bg-white px-4 pt-3 dark:border-slate-700 dark:bg-slate-900"
        >
          <h2 id={`tag-${tagId(t.name)}-heading`} className="pb-2 text-sm font-semibold capitalize">
            {t.name}
          </h2>
          {t.operations.map((op) => (
            <Operation key={`${op.method} ${op.path}`} op={op} />
          ))}
        </section>
      ))}
      <section
        id="schemas"
        aria-labelledby="schemas-heading"
        className="space-y-1 rounded border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900"
      >
        <h2 id="schemas-heading" className="text-sm font-semibold">
          Schemas
        </h2>
        {view.schemas.map((s) => (
          <div key={s.name} id={`schema-${s.name}`}>
            <SchemaJson label={s.name} schema={s.schema} />
          </div>
        ))}
      </section>
    </div>
  );
}
