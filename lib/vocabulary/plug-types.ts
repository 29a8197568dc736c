import { z } from "zod";

// A replay sink's type as a contract carries it where it cannot import the sink registry: the record's detail (its
// latest replay) and a triage rule's standing replay come before lib/replay on the data path, and importing
// lib/replay/sinks/registry.ts from them closes a folder loop (tests/unit/architecture.test.ts). The registry still
// decides: OpenAPI lists its types wherever this schema appears (lib/api/route-operations.ts), and the standing
// replay parses a rule's sink with the registry's schema before a version is stored (422 on replay.sink.type).

export const SinkTypeNameSchema = z.string().min(1).max(50).meta({ id: "SinkType", description: "a replay sink's type" });
