import { CopyButton } from "@/components/ui/copy-button";
import { Panel } from "@/components/ui/panel";

// How a producer sends dead letters: the two ingest endpoints, what they take, and a command to copy. The token
// is a placeholder: a real one is shown once, when it is created (API tokens, below).

const ENDPOINTS = [
  {
    route: "POST /api/dead-letters",
    takes:
      "one envelope, a JSON array of them (application/json) or one per line (application/x-ndjson); spatial (kind, observed_at, feature, dead_letter_reason) or AFC envelopes",
    answers: '{"results": [{"index", "status": "created" | "duplicate" | "rejected", "id"?, "errors"?}]}, in input order',
  },
  {
    route: "POST /api/afc/taps",
    takes: 'fare taps at the capture boundary: [tap, …], {"source", "taps": […]}, one tap, or NDJSON (one tap per line)',
    answers: '{"passed", "captured", "duplicates", "results": [{"index", "status": "passed" | "captured" | "duplicate", …}]}',
  },
] as const;

export const PLACEHOLDER_TOKEN = "rdv_YOUR_TOKEN";

export function curlExample(origin: string): string {
  return [
    `curl -X POST '${origin}/api/dead-letters' \\`,
    `  -H 'Authorization: Bearer ${PLACEHOLDER_TOKEN}' \\`,
    "  -H 'Content-Type: application/x-ndjson' \\",
    "  --data-binary @dead-letters.ndjson",
  ].join("\n");
}

export function IngestEndpoints({ origin }: { origin: string }) {
  const example = curlExample(origin);
  return (
    <Panel
      id="ingest"
      title="Sending dead letters"
      description={
        <>
          Authenticate with <code>Authorization: Bearer &lt;API token&gt;</code>. Sending a record again is safe: it answers{" "}
          <em>duplicate</em> and counts one more failure.
        </>
      }
    >
      <dl className="space-y-2 text-xs">
        {ENDPOINTS.map((e) => (
          <div key={e.route}>
            <dt className="font-mono font-semibold">{e.route}</dt>
            <dd className="text-slate-700 dark:text-slate-300">Takes {e.takes}.</dd>
            <dd className="text-slate-700 dark:text-slate-300">
              Answers <code className="break-all">{e.answers}</code>.
            </dd>
          </div>
        ))}
      </dl>
      <figure className="space-y-1">
        <figcaption className="flex items-center gap-2 text-xs font-medium text-slate-700 dark:text-slate-300">
          Example: send a file of envelopes
          <CopyButton
            text={example}
            label="Copy the curl example"
            className="border border-slate-300 dark:border-slate-600 dark:text-slate-300"
          />
        </figcaption>
        <pre className="overflow-x-auto rounded bg-slate-100 p-2 font-mono text-xs text-slate-900 dark:bg-slate-800 dark:text-slate-100">
          <code>{example}</code>
        </pre>
      </figure>
    </Panel>
  );
}
