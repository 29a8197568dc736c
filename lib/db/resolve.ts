import { getEnv } from "../env";
import { startEmbeddedPostgres, type EmbeddedHandle } from "./embedded";

/**
 * The one way every entry point finds its database: DATABASE_URL when set, else the embedded server under
 * REDRIVE_DATA_DIR (started, or attached to when another Redrive process already runs it).
 */
export async function resolveDatabase(
  log: (msg: string) => void = () => {},
  onUnexpectedExit?: (why: string) => void,
): Promise<EmbeddedHandle> {
  const env = getEnv();
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, owned: false, embedded: false, stop: async () => {} };
  return startEmbeddedPostgres({
    dataRoot: env.REDRIVE_DATA_DIR,
    port: env.REDRIVE_PG_PORT,
    sharedBuffers: env.REDRIVE_PG_SHARED_BUFFERS,
    log,
    onUnexpectedExit,
  });
}
