// Worker-thread entry for parallel seeding: registers tsx's loader in this thread, then runs the TypeScript
// chunk seeder. (A worker does not inherit the loader the main thread registered through tsx's API.)
import { register } from "tsx/esm/api";
import { parentPort, workerData } from "node:worker_threads";

register();
// A worker thread does not inherit the main thread's module hooks either (server-only, bin/server-side.mjs).
await import("../../bin/server-side.mjs");
const { seedChunks } = await import("./seed-chunks.ts");
const result = await seedChunks(workerData);
parentPort.postMessage(result);
