import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedHandle } from "../../lib/db/embedded";
import { freePort } from "../support/free-port";

// One process asking for the embedded PostgreSQL twice (bench:ingest opens a database per path, each through
// resolveDatabase) gets the server it already runs. It was taken for a server a killed owner left behind and
// restarted, which cut every connection the process had open on it.

const handles: EmbeddedHandle[] = [];
let root = "";

afterAll(async () => {
  for (const h of handles.reverse()) await h.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the embedded PostgreSQL asked for twice in one process", () => {
  it("is shared: a connection opened on the first answer survives the second, and the first handle stops it", async () => {
    root = await mkdtemp(join(tmpdir(), "redrive-embedded-"));
    await chmod(root, 0o755); // PostgreSQL runs as the `postgres` user when we are root
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataRoot: root, port });
    handles.push(first);
    expect(first.owned).toBe(true);
    const client = new pg.Client({ connectionString: first.url });
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    await client.connect();
    const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    // its flags took (a misspelt -c would not have started it; a wrong unit would show here)
    const wal = await client.query<{ name: string; setting: string }>(
      "SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['max_wal_size', 'checkpoint_timeout']) AS name ORDER BY name",
    );
    expect(wal.rows).toEqual([
      { name: "checkpoint_timeout", setting: "15min" },
      { name: "max_wal_size", setting: "16GB" },
    ]);

    const second = await startEmbeddedPostgres({ dataRoot: root, port });
    handles.push(second);
    expect(second.owned).toBe(false);
    expect(second.url).toBe(first.url);
    expect((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid).toBe(pid);
    expect(errors).toEqual([]);

    await second.stop(); // not its server: nothing happens
    expect((await client.query("SELECT 1 AS one")).rows[0]).toEqual({ one: 1 });
    await client.end();
  }, 120_000);
});
