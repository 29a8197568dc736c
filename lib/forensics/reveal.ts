import "server-only";
import { paramsOf, scopeSql, type RecordScope } from "../scope/record-scope";
import type pg from "pg";
import { parseLossless, toPlainJson } from "../json/lossless";
import { AppError } from "../errors/app-error";
import { appendAudit } from "../audit/append";
import { auditActor, type Actor } from "../audit/actor";
import { inTransaction } from "../db/transaction";
import type { JsonValue } from "@/lib/json/value";
import { maskJson } from "../masking/mask";
import type { MaskRules } from "../masking/rules";

// An auditor reveals one masked field of one record (POST /api/dead-letters/{id}/reveal). The value is read and
// the reveal audited in one transaction: no audit event, no value. The event names the field, never the value.

/** RFC 6901 pointer → segments ("/a~1b/0" → ["a/b", "0"]). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

export function valueAt(doc: JsonValue, segments: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = doc;
  for (const seg of segments) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(seg) ? cur[Number(seg)] : undefined;
    else if (cur !== null && typeof cur === "object") cur = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    else return undefined;
  }
  return cur;
}

export async function revealField(
  pool: pg.Pool,
  scope: RecordScope,
  id: string,
  path: string,
  ctx: { actor: Actor; requestId: string; now: Date; rules?: MaskRules },
): Promise<{ path: string; value: JsonValue }> {
  return inTransaction(pool, async (client) => {
    const values: unknown[] = [id];
    const { rows } = await client.query<{ payload: JsonValue | null; raw_envelope: string | null }>(
      `SELECT d.payload, d.raw_envelope FROM dead_letter d WHERE d.id = $1 AND ${scopeSql(scope, paramsOf(values))}`,
      values,
    );
    const row = rows[0];
    if (!row)
      throw new AppError("not_found", `dead letter ${id} does not exist`, { issues: [{ path: "id", message: "no such dead letter" }] });
    const [root = "", ...rest] = pointerSegments(path);
    let doc: JsonValue | null = null;
    if (root === "payload") doc = row.payload;
    else if (row.raw_envelope !== null) {
      try {
        // lossless: a PAN sent as a bare 16-digit number must come back with every digit
        doc = toPlainJson(parseLossless(row.raw_envelope));
      } catch {
        doc = null;
      }
    }
    const value = doc === null ? undefined : valueAt(doc, rest);
    if (value === undefined) {
      throw new AppError("not_found", `path: ${path} does not exist in dead letter ${id}`, {
        issues: [{ path: "path", message: "no value at this path" }],
      });
    }
    // Only a masked field is revealed (and audited as such): a value every reader sees in clear is not one.
    if (ctx.rules && doc !== null && JSON.stringify(valueAt(maskJson(doc, ctx.rules), rest)) === JSON.stringify(value)) {
      throw new AppError("validation_failed", `path: ${path} is not masked (everyone sees it in clear)`, {
        issues: [{ path: "path", message: "is not a masked field" }],
      });
    }
    await appendAudit(
      client,
      [
        {
          ...auditActor(ctx.actor, ctx.requestId),
          action: "dead_letter.field_revealed",
          targetType: "dead_letter",
          targetId: id,
          after: { path },
        },
      ],
      ctx.now,
    );
    return { path, value };
  });
}

/** A holder of dead_letters:unmask read a record in clear (unmask=1): the read itself is the audited act. */
export async function auditUnmaskedRead(
  pool: pg.Pool,
  id: string,
  view: string,
  ctx: { actor: Actor; requestId: string; now: Date },
): Promise<void> {
  await inTransaction(pool, (client) =>
    appendAudit(
      client,
      [
        {
          ...auditActor(ctx.actor, ctx.requestId),
          action: "dead_letter.unmasked_read",
          targetType: "dead_letter",
          targetId: id,
          after: { view },
        },
      ],
      ctx.now,
    ),
  );
}
