// The HTTP sink's floor in the replay benchmark: the same bodies the sink sends (requestBody, with the
// Idempotency-Key header), posted by a plain keep-alive client loop with the same number of requests in flight
// to the same 200-at-once receiver, no database and no engine. Two clients: undici's request (the leanest
// Node client, the floor, and what the sink uses) and fetch through undici (the slower one, for comparison).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Agent, fetch as undiciFetch, request } from "undici";

export interface OkServer {
  url: string;
  /** the receiver's process, for its CPU time */
  pid: number | undefined;
  answered(): Promise<number>;
  stop(): Promise<void>;
}

export async function startOkServer(): Promise<OkServer> {
  const child: ChildProcess = spawn(process.execPath, ["scripts/bench/ok-server.mjs"], { stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  const url = `http://127.0.0.1:${chunk.toString().trim()}/`;
  return {
    url,
    pid: child.pid,
    answered: async () => Number(await (await undiciFetch(url)).text()),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export interface LoopResult {
  client: "undici.request" | "fetch";
  inFlight: number;
  seconds: number;
  perSecond: number;
}

/** Posts every body once, `inFlight` at a time on keep-alive connections; items per second. */
export async function clientLoop(
  url: string,
  bodies: { key: string; body: string }[],
  inFlight: number,
  client: LoopResult["client"],
): Promise<LoopResult> {
  const dispatcher = new Agent({ connections: inFlight });
  let next = 0;
  const one = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      const item = bodies[i];
      if (!item) return;
      const headers = { "content-type": "application/json", "idempotency-key": item.key };
      if (client === "undici.request") {
        const res = await request(url, { method: "POST", headers, body: item.body, dispatcher });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`client loop: ${res.statusCode}`);
      } else {
        const res = await undiciFetch(url, { method: "POST", headers, body: item.body, dispatcher });
        await res.text();
        if (res.status !== 200) throw new Error(`client loop: ${res.status}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, one));
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  return { client, inFlight, seconds: Number(seconds.toFixed(2)), perSecond: Math.round(bodies.length / seconds) };
}
