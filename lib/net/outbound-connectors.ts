// Every connection Redrive opens on a user's word (a supervisor's sink, an admin's webhook or identity provider),
// and how each reaches the network under the one outbound rule (outbound-guard.ts: loopback, private, link-local
// addresses and socket paths refused unless REDRIVE_OUTBOUND_ALLOW_PRIVATE allows them; names resolved and judged
// at connect time, the judged address connected to). tests/integration/outbound-connectors.test.ts probes each
// entry: a connector added here without a probe there does not type-check. Every replay sink declares its use
// (lib/replay/sinks/sink-plug.server.ts) and the sink registry applies the rule before the sink's own checks, so a
// new sink cannot skip it. Broker sources are not here: an admin
// configures them as the operator's own connections (README, Security).

export const OUTBOUND_CONNECTORS = {
  /** lib/replay/sinks/http/http-sink.ts: outboundRequest, the guarded undici pool; checked when the batch is created */
  "http-sink": "guarded HTTP pool",
  /** lib/replay/sinks/postgis/postgis-connection.ts: every pg client and pool through outboundSocket */
  "postgis-sink": "guarded TCP socket",
  /** lib/ops/alerts/webhook.ts: outboundFetch; checked when the rule is saved */
  "alert-webhook": "guarded HTTP pool",
  /** lib/auth/auth.ts: better-auth fetches the issuer's discovery document inside withOutboundGuard */
  "sso-discovery": "global fetch inside withOutboundGuard",
  /** lib/auth/auth.ts: jose fetches the issuer's keys (JWKS) inside withOutboundGuard, while a sign-in is handled */
  "sso-jwks": "global fetch inside withOutboundGuard",
} as const;

export type OutboundConnector = keyof typeof OUTBOUND_CONNECTORS;
