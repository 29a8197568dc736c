/** Node module hook registered by server-side.mjs. */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "server-only") return nextResolve(specifier, { ...context, conditions: [...context.conditions, "react-server"] });
  return nextResolve(specifier, context);
}
