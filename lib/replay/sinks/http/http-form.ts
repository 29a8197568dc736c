import type { SinkForm } from "../sink-plug";

// The HTTP sink's settings in the replay form (components/replay/sink-fields.tsx renders them). Client-safe.

export const httpForm: SinkForm = {
  fields: [
    { name: "url", label: "URL", value: "text", url: true, required: true, wide: true, placeholder: "https://downstream.example/ingest" },
    { name: "headers", label: "Headers (one “Name: value” per line)", value: "header-lines", wide: true },
    { name: "timeoutMs", label: "Timeout (ms)", value: "number", min: 100, initial: "10000" },
    { name: "concurrency", label: "Requests in flight", value: "number", min: 1, max: 64, initial: "4" },
  ],
};
