// Sign-in attempts refused by the rate limiter (429) never reach better-auth's hooks, so lib/auth/auth.ts's
// after-hook cannot audit them. Auditing every one would turn a flood of guesses into a flood of audit events
// (each serialised on the hash chain); one event per client address per limiter window says what an auditor
// needs — this address was throttled, when — and costs at most one event per address per window, as its
// failed attempts before the limit already do.

export class ThrottleAuditGate {
  /** address → when it was last audited (epoch ms); insertion order is age order */
  private readonly last = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    /** addresses remembered at most: beyond it the oldest are forgotten (and may be audited again) */
    private readonly maxAddresses = 10_000,
  ) {}

  /** True when `address` being throttled at `nowMs` should be audited: the first time in a window. */
  admit(address: string, nowMs: number): boolean {
    const seen = this.last.get(address);
    if (seen !== undefined && nowMs - seen < this.windowMs) return false;
    this.last.delete(address);
    this.last.set(address, nowMs);
    for (const oldest of this.last.keys()) {
      if (this.last.size <= this.maxAddresses) break;
      this.last.delete(oldest);
    }
    return true;
  }
}
