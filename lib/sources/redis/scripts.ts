import { defineScript, type CommandParser, type RedisArgument } from "redis";

// Lua scripts run atomically on the server; node-redis sends each by EVALSHA and falls back to EVAL when the
// server answers NOSCRIPT (after a restart or SCRIPT FLUSH). Replies are checked by the callers (replies.ts).

const passThrough = (reply: unknown): unknown => reply;

/** publish's outcome codes */
export const GATE = { applied: 1, deduped: 0, noStream: -1, notAStream: -2 } as const;

/**
 * Publish back exactly once per idempotency key: remember the key and add the entry in one step, so a retry after
 * a lost reply finds the key set and adds nothing. The destination is checked first because Lua does not roll
 * back: a failing XADD after SET would leave a key set for an entry that was never added.
 */
export const publishGated = defineScript({
  NUMBER_OF_KEYS: 2,
  SCRIPT: `
local kind = redis.call('TYPE', KEYS[2])['ok']
if kind == 'none' then return ${GATE.noStream} end
if kind ~= 'stream' then return ${GATE.notAStream} end
if not redis.call('SET', KEYS[1], '1', 'NX') then return ${GATE.deduped} end
redis.call('XADD', KEYS[2], '*', unpack(ARGV))
return ${GATE.applied}`,
  parseCommand(parser: CommandParser, gateKey: RedisArgument, stream: RedisArgument, fieldArgs: RedisArgument[]) {
    parser.pushKey(gateKey);
    parser.pushKey(stream);
    parser.push(...fieldArgs);
  },
  transformReply: passThrough,
});

/**
 * Claims the candidates XPENDING found into Redrive's consumer and returns their entries: `{ {id, fields}… }` and
 * the ids still pending whose entry is gone. Atomic because XCLAIM silently drops a pending id whose entry was
 * deleted (Redis 7): checking first and claiming in one step keeps that dead letter visible until Redrive has
 * recorded it. JUSTID leaves the delivery count as XPENDING reported it; XCLAIM's min-idle re-check skips an entry
 * the application read again meanwhile.
 */
export const claimDead = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
local claimed, gone = {}, {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local found = redis.call('XRANGE', KEYS[1], id, id)
  if #found == 1 then
    if #redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], id, 'JUSTID') == 1 then
      claimed[#claimed + 1] = found[1]
    end
  elseif #redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[3], id, id, 1) == 1 then
    gone[#gone + 1] = id
  end
end
return {claimed, gone}`,
  parseCommand(
    parser: CommandParser,
    stream: RedisArgument,
    group: RedisArgument,
    consumer: RedisArgument,
    minIdleMs: number,
    ids: string[],
  ) {
    parser.pushKey(stream);
    parser.push(group, consumer, String(minIdleMs), ...ids);
  },
  transformReply: passThrough,
});

/** Removes Redrive's consumer only if it holds nothing: XGROUP DELCONSUMER would drop its pending entries. */
export const releaseConsumer = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) > 0 then return -1 end
return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])`,
  parseCommand(parser: CommandParser, stream: RedisArgument, group: RedisArgument, consumer: RedisArgument) {
    parser.pushKey(stream);
    parser.push(group, consumer);
  },
  transformReply: passThrough,
});

export const SCRIPTS = { publishGated, claimDead, releaseConsumer };
