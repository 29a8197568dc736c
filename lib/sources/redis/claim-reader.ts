import "server-only";
import type { PulledMessage } from "../connector";
import { binary, type RedisConnection } from "./connection";
import { after } from "./entry-id";
import { RedisSourceError } from "./errors";
import type { RedisOptions } from "./options";
import { toPulled, type StreamEntry } from "./origin";
import { pause } from "./pause";
import { pulled, type DeadLetterReader, type RedisReceipt } from "./reader";
import { claimReply } from "./replies";

// Claim mode: Redis has no dead-letter queue, so a dead letter is an entry of the application's group that has
// been delivered `maxDeliveries` times and sat unacknowledged for `minIdleMs`. XAUTOCLAIM cannot filter by delivery
// count (and adds one to it), so XPENDING's extended form (IDLE filter, one page at a time) finds the candidates with
// their counts, and a script claims exactly those ids into Redrive's consumer (scripts.ts: claimDead).

/** XPENDING page size while looking for candidates; one attempt reads at most SCAN_PAGES pages. */
const SCAN_PAGE = 500;
const SCAN_PAGES = 20;
/** waiting() counts by reading the pending list; past this many pages it answers null (not cheap). */
const COUNT_PAGE = 1000;
const COUNT_PAGES = 100;
/** nothing wakes a poll when an entry crosses `minIdleMs`, so take polls while it may still wait */
const POLL_MS = 250;

interface Candidate {
  id: string;
  deliveries: number;
}

export function claimReader(conn: RedisConnection, options: RedisOptions): DeadLetterReader {
  const { stream, group, consumer, field, minIdleMs, maxDeliveries } = options;
  const bin = binary(conn);
  /** ids returned by take and not acknowledged yet: the pending lists still hold them, take must skip them */
  const handedOut = new Set<string>();
  /** where the walk of Redrive's own pending list goes on; null once walked (until a failed read rewinds it) */
  let ownFrom: string | null = "-";
  /** where the search for new candidates goes on; it wraps to the start at the end of the list */
  let scanFrom = "-";

  const receipt = (id: string): RedisReceipt => ({ kind: "redis", stream, group, id });
  const hand = (entry: StreamEntry, deliveries: number): PulledMessage => {
    handedOut.add(entry.id);
    return pulled(toPulled(entry, { mode: "claim", stream, field, deliveryCount: deliveries }), receipt(entry.id));
  };

  /**
   * Entries already in Redrive's consumer that this connector has not handed out: claimed by a connector that
   * stopped before they were acknowledged. They come first, with the delivery count they were claimed with
   * (JUSTID claims leave it as it was).
   */
  async function ownPending(max: number): Promise<PulledMessage[]> {
    const picked: Candidate[] = [];
    while (ownFrom !== null && picked.length < max) {
      const page = await conn.xPendingRange(stream, group, ownFrom, "+", max, { consumer });
      let seen = 0;
      for (const p of page) {
        seen++;
        ownFrom = after(p.id);
        if (!handedOut.has(p.id)) picked.push({ id: p.id, deliveries: p.deliveriesCounter });
        if (picked.length >= max) break;
      }
      if (page.length < max && seen === page.length) ownFrom = null;
    }
    const found = await Promise.all(picked.map((c) => bin.xRange(stream, c.id, c.id)));
    return picked.map((c, i) => {
      const entry = found[i]?.[0];
      return hand({ id: c.id, fields: entry ? (entry.message as Buffer[]) : null }, c.deliveries);
    });
  }

  async function candidates(max: number): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (let pages = 0; pages < SCAN_PAGES && out.length < max; pages++) {
      const page = await conn.xPendingRange(stream, group, scanFrom, "+", SCAN_PAGE, { IDLE: minIdleMs });
      let seen = 0;
      for (const p of page) {
        seen++;
        scanFrom = after(p.id);
        if (p.consumer !== consumer && p.deliveriesCounter >= maxDeliveries && !handedOut.has(p.id)) {
          out.push({ id: p.id, deliveries: p.deliveriesCounter });
        }
        if (out.length >= max) break;
      }
      if (page.length < SCAN_PAGE && seen === page.length) {
        scanFrom = "-";
        break;
      }
    }
    return out;
  }

  async function claimNew(max: number): Promise<PulledMessage[]> {
    const found = await candidates(max);
    if (found.length === 0) return [];
    const deliveries = new Map(found.map((c) => [c.id, c.deliveries]));
    const reply = claimReply(
      await bin.claimDead(
        stream,
        group,
        consumer,
        minIdleMs,
        found.map((c) => c.id),
      ),
    );
    return [
      ...reply.claimed.map((e) => hand(e, deliveries.get(e.id) ?? maxDeliveries)),
      // Not claimed (XCLAIM would drop them): they stay pending in the application's consumer until acked.
      ...reply.gone.map((id) => hand({ id, fields: null }, deliveries.get(id) ?? maxDeliveries)),
    ];
  }

  async function attempt(max: number): Promise<PulledMessage[]> {
    const own = ownFrom === null ? [] : await ownPending(max);
    // New claims only once the own list is walked: a claim could land behind the walk's position and be seen twice.
    return own.length < max && ownFrom === null ? [...own, ...(await claimNew(max - own.length))] : own;
  }

  return {
    stream,
    group,

    async provision() {
      const kind = await conn.type(stream);
      if (kind === "none") throw new RedisSourceError("not_found", `stream "${stream}" does not exist`);
      if (kind !== "stream") throw new RedisSourceError("not_found", `"${stream}" is a ${kind}, not a stream`);
      const groups = await conn.xInfoGroups(stream);
      if (!groups.some((g) => g.name === group)) {
        throw new RedisSourceError("not_found", `stream "${stream}" has no consumer group "${group}"`);
      }
    },

    // Exact: Redrive's own pending entries plus those of other consumers that qualify, read page by page.
    async waiting() {
      const summary = await conn.xPending(stream, group);
      const own = summary.consumers?.find((c) => c.name === consumer)?.deliveriesCounter ?? 0;
      if (summary.pending === own) return own;
      let qualifying = 0;
      let from = "-";
      for (let pages = 0; pages < COUNT_PAGES; pages++) {
        const page = await conn.xPendingRange(stream, group, from, "+", COUNT_PAGE, { IDLE: minIdleMs });
        qualifying += page.filter((p) => p.consumer !== consumer && p.deliveriesCounter >= maxDeliveries).length;
        const last = page.at(-1);
        if (page.length < COUNT_PAGE || !last) return own + qualifying;
        from = after(last.id);
      }
      return null;
    },

    async take(max, waitMs, signal) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const got = await attempt(max);
        const left = deadline - Date.now();
        if (got.length > 0 || signal.aborted || left <= 0) return got;
        await pause(Math.min(POLL_MS, left), signal);
      }
    },

    forget(ids) {
      for (const id of ids) handedOut.delete(id);
    },

    rewind() {
      ownFrom = "-";
    },
  };
}
