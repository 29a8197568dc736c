import { z } from "zod";

/** The archive horizon as the settings page and GET/PUT /api/settings/archive show it. */
export interface ArchiveSetting {
  /** days a settled record stays in dead_letter before it moves to the archive; null: kept forever (the default) */
  days: number | null;
  /** the payload retention it comes after (REDRIVE_RETENTION_DAYS), for the page to show beside it */
  retentionDays: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

export const ArchiveSettingBody = z.strictObject({
  days: z
    .number()
    .int("must be a whole number of days")
    .min(1, "must be at least 1 day, or null to keep settled records forever")
    .max(36_500, "must be at most 36,500 days")
    .nullable()
    .describe("days a replayed or purged record stays in dead_letter before it moves to the archive; null keeps it forever"),
});
