import { AppError } from "../../errors/app-error";
import { isUtcMicrosText } from "../../time/instant";
import { isBigintId } from "../../db/column-limits";

// Keyset cursor over (observed_at, id): stable under inserts, index-only, never OFFSET.

export interface Cursor {
  observedAt: string;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.observedAt, c.id])).toString("base64url");
}

export function decodeCursor(raw: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === "string" &&
      isUtcMicrosText(parsed[0]) && // the stored instant, as the list wrote it (lib/time/instant.ts)
      typeof parsed[1] === "string" &&
      isBigintId(parsed[1])
    ) {
      return { observedAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError("validation_failed", "cursor: not a cursor returned by this API", {
    issues: [{ path: "cursor", message: "not a cursor returned by this API" }],
  });
}
