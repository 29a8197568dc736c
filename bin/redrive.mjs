#!/usr/bin/env node
// The CLI is TypeScript; tsx's loader runs it in this same process so signals (SIGTERM to a worker) and
// exit codes reach it directly, with no wrapper process in between.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
import "./server-side.mjs";

// Run from any directory (`cd app && npx redrive …`): the project's prisma/ and its embedded database's .data/ are
// found from the package root, not the current directory — which created a second, empty database. File
// arguments stay relative to where the command was typed.
const root = fileURLToPath(new URL("..", import.meta.url));
process.env.REDRIVE_ROOT ??= root;
process.env.REDRIVE_DATA_DIR ||= `${root}.data`;

// The project's tsconfig (its "@/" paths), wherever the command is typed: found from the current directory, a
// command typed outside the checkout could not load its own modules.
register({ tsconfig: `${root}tsconfig.json` });
await import("../lib/cli/main.ts");
