// Worker-thread entry for parallel seeding: registers tsx's loader in this thread, then runs the TypeScript
// chunk seeder. (A worker does not inherit the loader the main thread registered through tsx's API.)
import { register } from "tsx/esm/api";
import { parentPort, workerData } from "node:worker_threads";

register();
const { seedChunks } = await import("./seed-chunks.ts");
const result = await seedChunks(workerData);
parentPort.postMessage(result);
