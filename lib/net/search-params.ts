/** URLSearchParams → plain object; repeated keys become arrays so listOf() accepts both spellings. */
export function searchParamsToObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key).filter((v) => v !== "");
    if (all.length === 1) out[key] = all[0] as string;
    else if (all.length > 1) out[key] = all.flatMap((v) => v.split(","));
  }
  return out;
}
