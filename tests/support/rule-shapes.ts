// Geometries the triage-rule tests judge, near Paris: what each repair does to them is what the tests assert.

/** A pentagram drawn as one self-intersecting ring of radius `r`: linework drops its centre (−47%), structure −24%. */
export function pentagram(r = 0.01): { type: "Polygon"; coordinates: number[][][] } {
  return {
    type: "Polygon",
    coordinates: [
      [0, 2, 4, 1, 3, 0].map((k) => [
        2.35 + r * Math.cos(Math.PI / 2 + (k * 2 * Math.PI) / 5),
        48.85 + r * Math.sin(Math.PI / 2 + (k * 2 * Math.PI) / 5),
      ]),
    ],
  };
}

/** A bow-tie whose second lobe is a sliver: the linework repair keeps all but 0.01% of the area. */
export const SLIVER_BOWTIE = {
  type: "Polygon",
  coordinates: [
    [
      [2.35, 48.85],
      [2.36, 48.85],
      [2.36, 48.86],
      [2.35, 48.86],
      [2.3501, 48.8499],
      [2.35, 48.85],
    ],
  ],
};

/** A valid square: nothing to repair. */
export const SQUARE = {
  type: "Polygon",
  coordinates: [
    [
      [2.35, 48.85],
      [2.36, 48.85],
      [2.36, 48.86],
      [2.35, 48.86],
      [2.35, 48.85],
    ],
  ],
};
