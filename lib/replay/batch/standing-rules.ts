import "server-only";
import { AppError } from "../../errors/app-error";
import type { RuleReplayView } from "../../rules/rule-schemas";
import type { StandingReplayPort, StoredReplay } from "../../rules/rules";
import { describeSink, SinkSchema, sinkPlug, type SinkType } from "../sinks/registry";
import { checkSink, storeSink, storedSinkView } from "../sinks/registry.server";
import { openStandingBatch, pauseStandingOf, resumeStandingOf, standingOf } from "./standing-batch";

// The replay step's side of triage rules' standing replays (lib/rules/rules.ts StandingReplayPort): the rule's
// routes, its page and the CLI hand this to lib/rules, which never imports the replay step (the data path runs
// from the rules to the replay, not back).

/** The drafted sink as batches take it: the registry's schema, then the outbound rule and the sink's own checks. */
async function prepare(
  replay: { sink: unknown; ratePerSecond: number; canary?: StoredReplay["canary"] },
  match: {
    kind?: string;
    afcIssues?: unknown;
  },
): Promise<StoredReplay> {
  const parsed = SinkSchema.safeParse(replay.sink);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: ["replay", "sink", ...i.path].join("."), message: i.message }));
    throw new AppError("validation_failed", `${issues[0]!.path}: ${issues[0]!.message}`, { issues });
  }
  const sink = parsed.data;
  if (sinkPlug(sink.type).spatialOnly && (match.kind === "afc" || match.afcIssues !== undefined)) {
    const message = "takes spatial features only; the rule matches AFC taps";
    throw new AppError("validation_failed", `replay.sink: ${message}`, { issues: [{ path: "replay.sink", message }] });
  }
  await checkSink(sink, "replay.sink");
  return {
    sink: storeSink(sink) as StoredReplay["sink"],
    ratePerSecond: replay.ratePerSecond,
    ...(replay.canary ? { canary: replay.canary } : {}),
  };
}

function view(stored: StoredReplay): RuleReplayView {
  const sink = storedSinkView(stored.sink);
  return {
    sink: { ...sink },
    // A batch's page lists the destinations a back-to-origin detail refers to; a rule's page has none to list.
    sinkText: sinkPlug(sink.type as SinkType).needsOrigin
      ? `${describeSink(sink, "short")}: each record to the exchange, subject, stream, topic or queue it came from, through its broker source (a record approved without one cannot go back: it stays approved, outside the flow, counted as not replayable)`
      : describeSink(sink, "detail"),
    ratePerSecond: stored.ratePerSecond,
    ...(stored.canary ? { canary: stored.canary } : {}),
  };
}

export const STANDING_REPLAY: StandingReplayPort = {
  prepare,
  view,
  open: (client, spec, ctx) => openStandingBatch(client, spec, ctx.actor, ctx.requestId, ctx.now),
  pause: (client, rule, reason, ctx) => pauseStandingOf(client, rule.id, reason, ctx.actor, ctx.requestId, ctx.now),
  resume: (client, rule, ctx) => resumeStandingOf(client, rule, ctx.actor, ctx.requestId, ctx.now),
  flows: standingOf,
};
