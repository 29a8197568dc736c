// PostgreSQL errors by SQLSTATE, as node-postgres reports them (err.code, err.constraint).

/** A unique violation (23505), of the named constraint when one is given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e !== null && typeof e === "object" && e.code === "23505" && (constraint === undefined || e.constraint === constraint);
}
