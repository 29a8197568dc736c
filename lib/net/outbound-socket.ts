import "server-only";
import { isIP, Socket } from "node:net";
import { guardedLookup, isSocketPath, OutboundRefusedError, outboundPolicy, refusal, type OutboundPolicy } from "./outbound-guard";

// A TCP socket for connectors that speak their own protocol over it (the PostGIS sink's `pg`): the same rule as the
// HTTP pool (outbound-guard.ts), applied where the socket connects. A name is resolved through guardedLookup, so the
// address judged is the address connected to; an address literal is judged before connecting; a socket path (pg
// turns a host starting with "/" into `<dir>/.s.PGSQL.<port>`) is refused. The refusal is an 'error' on the socket,
// emitted on the next tick as a failed connection's would be, after the caller has attached its listeners.

type Connect = (...args: unknown[]) => Socket;

export function outboundSocket(policy: OutboundPolicy = outboundPolicy()): Socket {
  const socket = new Socket();
  const connect = socket.connect.bind(socket) as Connect;
  const refuse = (why: string): Socket => {
    process.nextTick(() => socket.destroy(new OutboundRefusedError(why)));
    return socket;
  };
  const guarded: Connect = (port, host) => {
    if (typeof port === "string" && !/^\d+$/.test(port)) {
      const path = port.replace(/\/\.s\.PGSQL\.\d+$/, "");
      return refuse(`refused: ${path} is a local socket path, which no sink or webhook may use`);
    }
    if (typeof port !== "number" && typeof port !== "string") return refuse("refused: the connection names no port");
    const name = typeof host === "string" ? host.replace(/^\[|\]$/g, "") : "";
    if (name === "") return refuse("refused: the target names no host");
    if (isSocketPath(name)) return refuse(`refused: ${name} is a local socket path, which no sink or webhook may use`);
    if (isIP(name) !== 0) {
      const why = refusal(name, name, policy);
      if (why) return refuse(why);
      return connect({ port: Number(port), host: name });
    }
    return connect({ port: Number(port), host: name, lookup: guardedLookup(policy) });
  };
  socket.connect = guarded as Socket["connect"];
  return socket;
}
