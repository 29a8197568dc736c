// Node entry points of Redrive's server side (the CLI, the launcher, the web server, worker threads, scripts) load
// modules marked `import "server-only"`. Outside Next's server bundle that marker throws; here it resolves, as in
// Next, to its empty react-server build. Every other specifier resolves as usual.
import { register } from "node:module";

register("./server-side-hooks.mjs", import.meta.url);
