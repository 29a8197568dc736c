// The search box's examples, one per form it reads (search-syntax.ts), each taken from the demo data (lib/seed,
// seed 42, as `npm start` seeds an empty database) so that trying one finds something:
// tests/integration/list-search-examples.test.ts seeds the demo records and searches each. Client-safe.

export const SEARCH_EXAMPLES = {
  /** a key's first characters (the list shows keys cut short) */
  keyPrefix: "sp-0d851373",
  /** a feature's id */
  featureId: "rome-parcel-258",
  /** words among the payload's values */
  words: "london parcel",
  /** key:value, the key at any depth */
  keyValue: "surveyed_by:crew-7",
  /** path = value */
  condition: 'properties.surveyed_by = "crew-7"',
} as const;

export const SEARCH_PLACEHOLDER = `e.g. ${SEARCH_EXAMPLES.keyPrefix}, ${SEARCH_EXAMPLES.featureId}, ${SEARCH_EXAMPLES.words}, ${SEARCH_EXAMPLES.keyValue} or ${SEARCH_EXAMPLES.condition}`;
