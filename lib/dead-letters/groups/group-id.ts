import { createHash } from "node:crypto";

/**
 * A failure group's id, as the SQL function failure_group_id() computes it (prisma/migrations/*_failure_groups):
 * the first 12 bytes of SHA-256 over source, U+001F, reason group, in base64url. The store step computes it here
 * so its statements look groups up by primary key without calling the SQL function once per group.
 */
export function failureGroupId(source: string, reasonGroup: string): string {
  return createHash("sha256").update(`${source}\u001f${reasonGroup}`, "utf8").digest().subarray(0, 12).toString("base64url");
}
