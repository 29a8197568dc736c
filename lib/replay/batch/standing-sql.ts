// Whether a triage rule's standing replay batch is open (lib/replay/batch/standing-batch.ts): the engine's
// completion and the rule's page read it from the rule itself, so every server agrees without any shared memory.

/** SQL (b: replay_batch): a standing batch whose rule version still decides, so more records may come; never complete. */
export const OPEN_STANDING = `EXISTS (SELECT 1 FROM rule sr WHERE sr.id = b.rule_id AND sr.status = 'active' AND sr.active_version = b.rule_version)`;
