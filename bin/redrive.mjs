#!/usr/bin/env node
// The CLI is TypeScript; tsx's loader runs it in this same process so signals (SIGTERM to a worker) and
// exit codes reach it directly, with no wrapper process in between.
import { register } from "tsx/esm/api";

register();
await import("../lib/cli/main.ts");
