import { once } from "node:events";
import { createServer } from "node:net";

/** A loopback port nothing listens on now (the OS picks it), for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const srv = createServer().listen(0, "127.0.0.1");
  await once(srv, "listening");
  const address = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
}
