import "server-only";
import type { RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { ListFilter } from "../../dead-letters/filters";
import type { MaskRules } from "../../masking/rules";
import type { ExportFormat } from "../forensics-schemas";
import { exportStream, type ExportOrder, type ExportStats } from "./stream";

// An export and its audit event: one event per export, written when the stream ends — completed, failed or
// abandoned by the client — with the filter, the format, what was written and whether it was masked. Written
// at the end because only then is the count known; an export cut short is audited as such, since whatever
// reached the client has left the building.

export interface AuditedExportContext {
  actor: Actor;
  requestId: string;
  now: Date;
}

export function auditedExport(
  pool: pg.Pool,
  args: { format: ExportFormat; filter: ListFilter; scope: RecordScope; mask: MaskRules | null; order?: ExportOrder; excel?: boolean },
  ctx: AuditedExportContext,
  log: (msg: string, err: unknown) => void = (m, e) => console.error(m, e),
): { stream: ReadableStream<Uint8Array>; stats: ExportStats; audited: Promise<void> } {
  let settle: () => void = () => {};
  const audited = new Promise<void>((resolve) => (settle = resolve));
  const { stream, stats } = exportStream(pool, {
    ...args,
    onEnd: async (s, error) => {
      try {
        await inTransaction(pool, (client) =>
          appendAudit(
            client,
            [
              {
                ...auditActor(ctx.actor, ctx.requestId),
                action: "dead_letters.exported",
                targetType: "export",
                targetId: null,
                after: {
                  format: args.format,
                  filter: JSON.parse(JSON.stringify(args.filter)) as unknown,
                  count: s.records,
                  skipped: s.skipped,
                  bytes: s.bytes,
                  masked: args.mask !== null,
                  order: args.order ?? "desc",
                  ...(args.excel ? { excel: true } : {}),
                  completed: s.completed,
                  ...(error === null ? {} : { error: error instanceof Error ? error.message : String(error) }),
                },
              },
            ],
            ctx.now,
          ),
        );
      } catch (err) {
        log(`[export] ${ctx.requestId}: could not audit the export`, err);
      } finally {
        settle();
      }
    },
  });
  return { stream, stats, audited };
}
