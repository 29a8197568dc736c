import { z } from "zod";

// How a stored destination's optional fields are read for the record page: the API serves origin as plain JSON,
// so it is checked rather than trusted, and an absent field reads as null. Pure and client-safe.

export const nullableText = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

export const nullableNumber = z
  .number()
  .nullish()
  .transform((v) => v ?? null);
