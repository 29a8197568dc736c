import type { SinkForm } from "../sink-plug";

// The PostGIS sink's settings in the replay form (components/replay/sink-fields.tsx renders them). Client-safe.

export const postgisForm: SinkForm = {
  note: "The keys go into redrive_applied_key in the same schema. PostGIS checks every geometry first. The URL is stored encrypted and shown redacted.",
  afcNotice: "the PostGIS sink takes spatial features only. Filter on kind = spatial first.",
  fields: [
    {
      name: "url",
      label: "Database URL",
      value: "text",
      required: true,
      wide: true,
      secret: true,
      placeholder: "postgresql://writer:password@db.example:5432/gis",
    },
    { name: "table", label: "Table", value: "text", required: true, placeholder: "schema.table" },
    { name: "srid", label: "SRID", value: "number", min: 0, initial: "4326" },
    { name: "idColumn", label: "Id column", value: "text", required: true, initial: "id" },
    { name: "idProperty", label: "Id property (Features without an id)", value: "optional", placeholder: "optional" },
    { name: "geometryColumn", label: "Geometry column", value: "text", required: true, initial: "geom" },
    { name: "observedAtColumn", label: "Observation time column", value: "text", required: true, initial: "observed_at" },
    { name: "propertiesColumn", label: "Properties column (jsonb)", value: "optional", placeholder: "optional" },
  ],
};
