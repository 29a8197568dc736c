// What a replay item keeps of its record when it joins a batch — a batch created from a selection
// (lib/replay/batch/create-batch.ts) or a rule's standing replay (lib/rules/standing-queue.ts) — as SQL over
// `d` (dead_letter): what the engine sends and what it checks the record against. One definition for both.

export const ITEM_SNAPSHOT_SQL = `jsonb_build_object('payload', d.payload, 'version', d.version, 'source', d.source, 'replayCount', d.replay_count,
           'approvedRepair', d.approved_repair)`;

/**
 * SQL over `d` (dead_letter): the record was pulled from a broker source, so a replay back to origin has a source to
 * send it through. A batch back to origin leaves the others out (lib/replay/batch/create-batch.ts), a rule's standing
 * replay back to origin counts them as not replayable (lib/rules/standing-queue.ts), and a rule's dry run counts them
 * ahead (lib/replay/sinks/origin/origin-destinations.ts notReplayableToOrigin). One definition for all three.
 */
export const HAS_ORIGIN = "d.origin_source IS NOT NULL";
