import "server-only";
import { ErrorReply } from "redis";
import type { PulledMessage } from "../connector";
import { binary, blockingRead, COMMAND_TIMEOUT_MS, type RedisConnection } from "./connection";
import { RedisSourceError } from "./errors";
import type { RedisOptions } from "./options";
import { toPulled, type StreamEntry } from "./origin";
import { pulled, type DeadLetterReader, type RedisReceipt } from "./reader";
import { readGroupEntries } from "./replies";

// dlqStream mode: producers already XADD dead entries to a dead-letter stream. Redrive reads it through its own
// group with XREADGROUP: first the entries its consumer holds without an acknowledgement (id 0…, left by a connector
// that stopped), then new ones (">"), blocking on a connection of its own so acks and publishes never queue behind
// the wait.

export function streamReader(
  conn: RedisConnection,
  blocking: RedisConnection,
  options: RedisOptions & { dlqStream: string },
): DeadLetterReader {
  const { dlqStream, dlqGroup, consumer, field, stream } = options;
  const bin = binary(conn);
  const handedOut = new Set<string>();
  /** the last own pending id read (XREADGROUP returns what follows it); null once walked */
  let historyFrom: string | null = "0";

  const receipt = (id: string): RedisReceipt => ({ kind: "redis", stream: dlqStream, group: dlqGroup, id });
  const hand = (entry: StreamEntry): PulledMessage => {
    handedOut.add(entry.id);
    return pulled(toPulled(entry, { mode: "dead_letter_stream", dlqStream, stream, field }), receipt(entry.id));
  };

  async function ownPending(max: number): Promise<PulledMessage[]> {
    while (historyFrom !== null) {
      const entries = readGroupEntries(await bin.xReadGroup(dlqGroup, consumer, { key: dlqStream, id: historyFrom }, { COUNT: max }));
      const last = entries.at(-1);
      historyFrom = entries.length < max || !last ? null : last.id;
      const fresh = entries.filter((e) => !handedOut.has(e.id));
      if (fresh.length > 0) return fresh.map(hand);
    }
    return [];
  }

  return {
    stream: dlqStream,
    group: dlqGroup,

    async provision() {
      try {
        // From 0, so entries dead-lettered before the source existed are read too.
        await conn.xGroupCreate(dlqStream, dlqGroup, "0", { MKSTREAM: true });
      } catch (e) {
        if (!(e instanceof ErrorReply && e.message.startsWith("BUSYGROUP"))) throw e;
      }
    },

    // lag (entries not yet delivered to the group) + pending (delivered, not acknowledged). Redis reports no lag
    // when it cannot compute it (entries deleted after the group's position): then null rather than a guess.
    async waiting() {
      const kind = await conn.type(dlqStream);
      if (kind !== "stream")
        throw new RedisSourceError("not_found", `dead-letter stream "${dlqStream}" does not exist (provision creates it)`);
      const info = (await conn.xInfoGroups(dlqStream)).find((g) => g.name === dlqGroup);
      if (!info)
        throw new RedisSourceError("not_found", `dead-letter stream "${dlqStream}" has no group "${dlqGroup}" (provision creates it)`);
      const lag: number | null = info.lag;
      return lag === null ? null : lag + info.pending;
    },

    async take(max, waitMs) {
      const own = await ownPending(max);
      if (own.length > 0) return own;
      // BLOCK 0 would wait forever: without a wait, ask once.
      const reply = await blockingRead(blocking, waitMs + COMMAND_TIMEOUT_MS).xReadGroup(
        dlqGroup,
        consumer,
        { key: dlqStream, id: ">" },
        waitMs > 0 ? { COUNT: max, BLOCK: waitMs } : { COUNT: max },
      );
      return readGroupEntries(reply).map(hand);
    },

    forget(ids) {
      for (const id of ids) handedOut.delete(id);
    },

    rewind() {
      historyFrom = "0";
    },
  };
}
