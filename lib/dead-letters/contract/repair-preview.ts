import { z } from "zod";
import { RepairMethodSchema, RepairPolicySchema } from "../../vocabulary/record";
import { JsonValueSchema } from "./record-id";
import { SpatialAnalysisSchema } from "./detail";

// GET /api/dead-letters/{id}/repair-preview: what a replay would send with a given repair, before approving it.

/** Which repair to preview (omitted: the record's own). */
export const RepairPreviewQuerySchema = z.object({ method: RepairMethodSchema.optional(), policy: RepairPolicySchema.optional() });

export const RepairPreviewSchema = z
  .object({
    method: RepairMethodSchema,
    policy: RepairPolicySchema,
    /** the repair as the record's source analyses it (its default): what the page starts from */
    sourceDefault: z.object({ method: RepairMethodSchema, policy: RepairPolicySchema }),
    analysis: SpatialAnalysisSchema,
    /** what a replay with this repair sends (null: nothing, it is dropped) */
    geometry: JsonValueSchema.nullable(),
    /** SHA-256 of that geometry's canonical JSON: send it with the approval to pin exactly this result */
    digest: z.string().nullable(),
    /** what the approval must acknowledge: a large area change or a type change */
    warnings: z.array(z.object({ kind: z.enum(["area", "type"]), message: z.string() })),
    /** the area change (share of the input's area) beyond which a repair is a warning */
    areaChangeWarn: z.number(),
  })
  .meta({ id: "RepairPreview" });
export type RepairPreview = z.infer<typeof RepairPreviewSchema>;
