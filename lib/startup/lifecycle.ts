// Whether this server is stopping: set by scripts/serve.ts on SIGTERM, read by GET /api/health/ready, so a load
// balancer stops sending new requests before the server closes. On globalThis: Next bundles each route with its own
// copy of a module, and the server script and the routes must see one flag.
const state = globalThis as unknown as { __redriveDraining?: boolean };

export function startDraining(): void {
  state.__redriveDraining = true;
}

export function isDraining(): boolean {
  return state.__redriveDraining === true;
}
