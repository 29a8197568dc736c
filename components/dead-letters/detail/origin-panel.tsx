"use client";

import Link from "next/link";
import { useMemo } from "react";
import { DividedBody } from "@/components/ui/table";
import type { JsonValue } from "@/lib/json/value";
import { findSourcePlug } from "@/lib/sources/registry";
import { destinationParts, headerText, readOrigin } from "./origin";

// Where a record pulled from a broker came from: its source, the destination it was going to (where "Back to
// origin" publishes it), why and when the broker dead-lettered it, and the broker's headers. Compact: it sits
// beside the maps, under "Why it failed".

function When({ iso }: { iso: string | null }) {
  return iso ? <time dateTime={iso}>{`${iso.replace("T", " ").slice(0, 19)} UTC`}</time> : <>time unknown</>;
}

function Row({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-x-2 py-0.5 sm:grid-cols-[6.5rem_minmax(0,1fr)]">
      <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="min-w-0 text-slate-800 dark:text-slate-200">{children}</dd>
    </div>
  );
}

const Code = ({ children }: { children: React.ReactNode }) => (
  <code className="rounded bg-slate-100 dark:bg-slate-800 px-1 text-xs">{children}</code>
);

function FieldTable({ label, fields }: { label: string; fields: Record<string, unknown> }) {
  const entries = Object.entries(fields);
  if (entries.length === 0) return <span className="text-slate-500 dark:text-slate-400">none</span>;
  return (
    <div className="max-h-36 overflow-auto rounded border border-slate-100 dark:border-slate-800">
      <table className="w-full text-left font-mono text-xs">
        <caption className="sr-only">{label}</caption>
        <DividedBody>
          {entries.map(([key, value]) => (
            <tr key={key} className="align-top">
              <th scope="row" className="w-1/3 bg-slate-50 dark:bg-slate-800 px-1.5 py-0.5 font-normal text-slate-600 dark:text-slate-300">
                {key}
              </th>
              <td className="px-1.5 py-0.5 text-slate-800 dark:text-slate-200">{headerText(value)}</td>
            </tr>
          ))}
        </DividedBody>
      </table>
    </div>
  );
}

export function OriginPanel({ origin, className = "" }: { origin: JsonValue; className?: string }) {
  const read = useMemo(() => readOrigin(origin), [origin]);
  return (
    <section
      aria-labelledby="origin-heading"
      className={`min-w-0 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm wrap-anywhere ${className}`}
    >
      <h2 id="origin-heading" className="mb-1 text-sm font-semibold">
        Origin
      </h2>
      {read === null ? (
        <pre className="max-h-36 overflow-auto text-xs">{JSON.stringify(origin, null, 2)}</pre>
      ) : (
        <dl>
          <Row term="Source">
            <Link
              href="/sources"
              className="font-medium text-sky-800 dark:text-sky-200 underline-offset-2 hover:underline"
              title="The broker sources"
            >
              {read.source}
            </Link>{" "}
            · {findSourcePlug(read.sourceType)?.label ?? read.sourceType} ·{" "}
            <Link
              href={`/dead-letters?origin=${encodeURIComponent(read.source)}`}
              className="text-xs text-sky-800 dark:text-sky-200 underline-offset-2 hover:underline"
            >
              its records
            </Link>
          </Row>
          <Row term="Destination">
            {destinationParts(read.destination).map((p) => (
              <span key={p.term} className={`mr-3 inline-block ${p.minor ? "text-xs text-slate-500 dark:text-slate-400" : ""}`}>
                {p.term} <Code>{p.value}</Code>
              </span>
            ))}
          </Row>
          <Row term="Died">
            <Code>{read.deathReason ?? "no reason given"}</Code> ·{" "}
            {read.deliveryCount === null
              ? "delivery count unknown"
              : `after ${read.deliveryCount} ${read.deliveryCount === 1 ? "delivery" : "deliveries"}`}
            {read.diedAt && (
              <>
                {" "}
                · at <When iso={read.diedAt} />
              </>
            )}
          </Row>
          <Row term="Published">
            <When iso={read.publishedAt} />
          </Row>
          <Row term="Message">
            id <Code>{read.messageId ?? "—"}</Code> · position <Code>{read.position ?? "—"}</Code>
          </Row>
          <Row term="Headers">
            <FieldTable label="Broker headers" fields={read.headers} />
          </Row>
          {Object.keys(read.properties).length > 0 && (
            <Row term="Properties">
              <FieldTable label="Broker properties" fields={read.properties} />
            </Row>
          )}
        </dl>
      )}
    </section>
  );
}
