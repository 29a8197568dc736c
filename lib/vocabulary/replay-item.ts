// What a replay item keeps of its record when it joins a batch — a batch created from a selection
// (lib/replay/batch/create-batch.ts) or a rule's standing replay (lib/rules/standing-queue.ts) — as SQL over
// `d` (dead_letter): what the engine sends and what it checks the record against. One definition for both.

export const ITEM_SNAPSHOT_SQL = `jsonb_build_object('payload', d.payload, 'version', d.version, 'source', d.source, 'replayCount', d.replay_count,
           'approvedRepair', d.approved_repair)`;
