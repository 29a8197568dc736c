import "server-only";
import { createDb } from "../db/client";
import { ingest } from "../dead-letters/ingest/ingest";
import type { RecordText } from "../dead-letters/ingest/split";
import { generateAfc } from "./generate-afc";
import { generateSpatial } from "./generate-spatial";
import { Rng } from "./rng";

export const DEMO_BASE = Date.UTC(2026, 10, 1); // 2026-11-01
export const SPAN_MS = 28 * 24 * 3600 * 1000;
export const CHUNK = 10_000;

export interface ChunkJob {
  url: string;
  seed: number;
  count: number;
  /** this worker takes chunks where chunk % stride === offset */
  offset: number;
  stride: number;
}

export interface ChunkResult {
  created: number;
  duplicates: number;
  rejected: number;
  applied: string[];
}

/**
 * The records of the given chunks. Each chunk has its own RNG stream (seed, chunk), so a record is the same
 * whichever worker generates it and however many workers there are.
 */
export function* chunkRecords(seed: number, count: number, chunks: Iterable<number>, applied: string[]): Generator<RecordText> {
  for (const chunk of chunks) {
    const rng = new Rng(seed * 1_000_003 + chunk);
    const end = Math.min(count, (chunk + 1) * CHUNK);
    for (let i = chunk * CHUNK; i < end; i++) {
      if (rng.chance(0.55)) {
        const g = generateSpatial(rng, i, DEMO_BASE, SPAN_MS);
        if (g.applied) applied.push(g.envelope.idempotency_key as string);
        yield { index: i, text: JSON.stringify(g.envelope) };
      } else {
        yield { index: i, text: generateAfc(rng, i, DEMO_BASE, SPAN_MS).text };
      }
    }
  }
}

function* chunksOf(job: ChunkJob): Generator<number> {
  for (let c = job.offset; c * CHUNK < job.count; c += job.stride) yield c;
}

async function* asAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

/** Seeds this job's chunks through the real ingest pipeline on its own connections. */
export async function seedChunks(job: ChunkJob, onBatch?: (n: number) => void): Promise<ChunkResult> {
  const db = createDb(job.url, 3);
  const result: ChunkResult = { created: 0, duplicates: 0, rejected: 0, applied: [] };
  try {
    const actor = { id: null, email: "demo-seed", role: "system" };
    const records = asAsync(chunkRecords(job.seed, job.count, chunksOf(job), result.applied));
    // Normalized on this thread: the seed runs its chunks in threads of its own.
    const ctx = { pool: db.pool, actor, requestId: `seed-${job.seed}`, batchSize: 1000, threads: null };
    for await (const results of await ingest({ via: "records", records }, ctx)) {
      for (const r of results) {
        if (r.status === "created") result.created++;
        else if (r.status === "duplicate") result.duplicates++;
        else result.rejected++;
      }
      onBatch?.(results.length);
    }
  } finally {
    await db.pool.end();
  }
  return result;
}
