// The record's latest replay that reached its sink (applied, or deduped by it), as a scalar subquery over the
// record `d`: the detail (detail.ts) and the exports (lib/forensics/export) read the same item. The replay item keeps
// what was sent (replay_item.sent) for good, whatever the record's own approval fields say later.

/** `(SELECT <select> FROM the latest sent item of d …)`; `i` is the item, `b` its batch. */
export function lastReplaySql(select: string): string {
  return `(SELECT ${select} FROM replay_item i JOIN replay_batch b ON b.id = i.batch_id
    WHERE i.dead_letter_id = d.id AND i.status IN ('applied', 'deduped') AND i.submitted_at IS NOT NULL
    ORDER BY i.id DESC LIMIT 1)`;
}

/** The geometry an item sent: the repair's result when it changed it, the snapshot's when it was valid; null unknown. */
export const SENT_GEOMETRY_SQL = `CASE WHEN i.sent IS NULL THEN NULL WHEN i.sent->>'outcome' = 'repaired' THEN i.sent->'geometry'
    ELSE i.snapshot->'payload'->'geometry' END`;
