import "server-only";
import type pg from "pg";
import type { SourceConnector } from "./connector";
import { readSourceConfig } from "./manage-sources";
import { openConnector } from "./registry.server";

// Connections to sources kept open between publishes (the origin sink sends each record through its own
// source's connection): one per source per process, opened on first use, reopened when the source changed,
// closed after a minute unused.

const IDLE_MS = 60_000;

interface Held {
  connector: Promise<SourceConnector>;
  version: string;
  lastUsed: number;
}

export class ConnectorCache {
  private readonly held = new Map<string, Held>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pool: pg.Pool) {
    this.timer = setInterval(() => void this.closeIdle(), IDLE_MS / 4);
    this.timer.unref();
  }

  async get(name: string): Promise<SourceConnector> {
    const { rows } = await this.pool.query<{ version: string }>("SELECT updated_at::text AS version FROM source WHERE name = $1", [name]);
    const version = rows[0]?.version;
    if (version === undefined) throw new Error(`source ${name} no longer exists`);
    const known = this.held.get(name);
    if (known && known.version === version) {
      known.lastUsed = Date.now();
      return known.connector;
    }
    if (known) void this.drop(name);
    const connector = readSourceConfig(this.pool, name).then(openConnector);
    const entry: Held = { connector, version, lastUsed: Date.now() };
    this.held.set(name, entry);
    connector.catch(() => {
      if (this.held.get(name) === entry) this.held.delete(name);
    });
    return connector;
  }

  /** A connection that failed is not reused: the next publish opens a new one. */
  async drop(name: string): Promise<void> {
    const known = this.held.get(name);
    this.held.delete(name);
    await known?.connector.then((c) => c.close()).catch(() => {});
  }

  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.held.keys()].map((n) => this.drop(n)));
  }

  private async closeIdle(): Promise<void> {
    const now = Date.now();
    for (const [name, h] of this.held) if (now - h.lastUsed > IDLE_MS) await this.drop(name);
  }
}
