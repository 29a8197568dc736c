import "server-only";
import type pg from "pg";
import type { z } from "zod";
import type { OutboundConnector } from "../../net/outbound-connectors";
import type { Sink } from "./sink";

// What a sink type is to the server: how replay_batch.sink holds it (secrets sealed), how readers see it, what is
// checked before a batch is created, and the sink a worker sends to. Each type's folder exports one; the
// registry (registry.server.ts) lists them and applies what every sink must pass, the outbound rule first.

/**
 * How a sink reaches the network on a supervisor's word. `connector` names its entry in lib/net/outbound-connectors.ts
 * (tests/integration/outbound-connectors.test.ts probes each); `refusal` says why the configured target may not be
 * reached (REDRIVE_OUTBOUND_HOSTS, then lib/net/outbound-guard.ts's rule on every host it names) before any
 * connection, and the registry answers it as a 422 on `sink.<field>`.
 */
export interface OutboundUse<C> {
  connector: OutboundConnector;
  field: string;
  refusal(config: C): Promise<string | null>;
}

/** What `redrive sink check` prints of a sink's target: the report, the same in words, and whether a batch can write there. */
export interface TargetInspection<A = unknown> {
  /** printed as it is with --json (masked like every answer of the CLI) */
  answer: A;
  /** the report in words, made from the answer as printed; `flagOf` names the flag of a field's path (sink.table → --table) */
  text(printed: A, flagOf: (path: string) => string): string;
  ok: boolean;
}

export interface SinkServerPlug<C extends { type: string }, Opened extends { type: string }, V> {
  type: C["type"];
  /**
   * Every sink declares how it connects: an outbound use (the registry checks it), or why it needs none (it
   * connects nowhere a supervisor chooses). A new sink cannot leave this out.
   */
  outbound: OutboundUse<C> | { none: string };
  /** What replay_batch.sink keeps: secrets sealed. */
  store(config: C): unknown;
  /** The stored value opened for a worker; throws (zod or SealError) when it cannot be used. */
  open(stored: unknown): Opened;
  view(config: C): V;
  /** What readers see of a stored value, without the key; null when it cannot be read at all. */
  storedView(stored: unknown): V | null;
  /** The target's own checks after the outbound rule (PostGIS: the database, the table, the columns); 422 naming the field. */
  check?(config: C, path: string): Promise<void>;
  /**
   * `redrive sink check`: connects to the target (the outbound rule already applied) and says what is there. Given
   * exactly when its config plug has a `checkCommand` (tests/unit/plug-registries.test.ts).
   */
  inspect?(config: C): Promise<TargetInspection>;
  make(opened: Opened, ctx: { workerId: string; pool: pg.Pool }): Sink;
}

/** Any sink type's server plug (methods are compared bivariantly, so each type's own shapes fit). */
export type AnySinkServerPlug = SinkServerPlug<{ type: string }, { type: string }, { type: string }>;

/** A sink whose configuration is its type alone (the ledger, back to origin): stored, opened and shown as it is. */
export function typeOnlyServerPlug<T extends string>(
  type: T,
  schema: z.ZodType<{ type: T }>,
  outbound: { none: string },
  make: SinkServerPlug<{ type: T }, { type: T }, { type: T }>["make"],
): SinkServerPlug<{ type: T }, { type: T }, { type: T }> {
  const view = (config: { type: T }) => ({ type: config.type });
  const open = (stored: unknown) => schema.parse(stored);
  return {
    type,
    outbound,
    store: view,
    open,
    view,
    storedView: (stored) => {
      const parsed = schema.safeParse(stored);
      return parsed.success ? view(parsed.data) : null;
    },
    make,
  };
}
