import type { z } from "zod";
import { holdsCardNumber } from "./mask";

/**
 * Every filter's reader sees card numbers masked (the list, its facets, the map, masked exports, a rule's dry run),
 * and a filter must not find what its reader is not shown: a term holding a card-like number (mask.ts cardSpans, the
 * rule masking uses) is refused for every text parameter, so a card cannot be confirmed, nor end up in a URL.
 */
export const CARD_NUMBER_REFUSED = "holds a card number, which is masked wherever it is shown and cannot be searched";

/** A text parameter that finds records: refused when it holds a card number. */
export const searchText = (schema: z.ZodString) => schema.refine((v) => !holdsCardNumber(v), CARD_NUMBER_REFUSED);
