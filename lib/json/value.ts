/** A JSON value as stored (jsonb) and served: what every parsed payload is typed as. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
