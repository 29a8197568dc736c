-- Boxes of geometries across the antimeridian were stored with their corners ordered by PostgreSQL: Fiji's RFC 7946
-- bbox [178, -17, -178, -16] became the box -178..178, 356° wide, which overlapped viewports anywhere at those
-- latitudes. They are now stored unwrapped, east + 360 (178..182; lib/dead-letters/store/write-records/stored-box.ts), and every search
-- also tests the view shifted by +360 (lib/dead-letters/query/viewport.ts: searchBoxes).
--
-- Which stored boxes to convert: the analysis says the geometry crosses, and the box has both edges strictly inside
-- (-180, 180). lib/spatial/analyze.ts gives such a geometry west > east unless its extent just touches the seam
-- (e.g. 170..180, or the whole world -180..180), and those boxes are already true and touch ±180; a west > east box
-- never has an edge at ±180 (its west is wrapped into [-180, 180), its east into (-180, 180]). A converted box has
-- its east edge past 180, so running this again changes nothing.
--
-- box[0] is the upper-right corner, box[1] the lower-left one: the stored box was (east, south)..(west, north).
-- version and updated_at stay: the record did not change, only how its box is indexed.
UPDATE "dead_letter"
SET "bbox" = box(point(("bbox"[0])[0], ("bbox"[1])[1]), point(("bbox"[1])[0] + 360, ("bbox"[0])[1]))
WHERE "kind" = 'spatial'
  AND ("analysis"->>'crosses_antimeridian')::boolean
  AND ("bbox"[1])[0] > -180
  AND ("bbox"[0])[0] < 180;
