import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { outboundAgent } from "./outbound-guard";

// For libraries that fetch on a user's word with the global `fetch` and take no dispatcher of ours: better-auth's
// generic OAuth plugin fetches the SSO issuer's discovery document, its token and userinfo endpoints, and (through
// jose) its JWKS. Code run inside `withOutboundGuard` reaches the network through the guarded pool
// (outbound-guard.ts); every other fetch of the process keeps the dispatcher it had. Node's own fetch and undici's
// share the global dispatcher slot, so one switch covers both.

// On globalThis: Next bundles a copy of this module per route, and the dispatcher one copy installs must see the
// scope another copy opened.
const shared = globalThis as unknown as { __redriveOutboundScope?: AsyncLocalStorage<true> };
const guarded = (shared.__redriveOutboundScope ??= new AsyncLocalStorage<true>());

const MARK = Symbol.for("redrive.outboundScopedDispatcher");

class ScopedDispatcher extends Dispatcher {
  readonly [MARK] = true;
  constructor(private readonly fallback: Dispatcher) {
    super();
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return (guarded.getStore() ? outboundAgent() : this.fallback).dispatch(options, handler);
  }
  override close(): Promise<void> {
    return this.fallback.close();
  }
  override destroy(): Promise<void> {
    return this.fallback.destroy();
  }
}

function installScopedDispatcher(): void {
  const current = getGlobalDispatcher();
  // The mark, not the class, tells that one is installed (another copy of this module may have installed it).
  if ((current as Partial<Record<typeof MARK, boolean>>)[MARK]) return;
  setGlobalDispatcher(new ScopedDispatcher(current));
}

/** Runs `fn` (and everything it starts, promises and timers included) with its fetches under the outbound rule. */
export function withOutboundGuard<T>(fn: () => T): T {
  installScopedDispatcher();
  return guarded.run(true, fn);
}
