import { format } from "node:util";
import { maskFreeText } from "../masking/mask";
import type { MaskRules } from "../masking/rules";

// Log lines are a read path too: an error's message or a failing record's reason can hold what a producer sent.
// Every line a process writes through `console` is formatted first and goes out with its card numbers masked,
// whichever module wrote it. The CLI passes only its diagnostics (stderr): what a command prints on stdout is its
// answer, masked or in clear by that command's own rules (an auditor's --unmask).

type Method = "log" | "info" | "warn" | "error" | "debug";

const installed = new Set<Method>();

export function maskConsole(rules: MaskRules, methods: readonly Method[] = ["log", "info", "warn", "error", "debug"]): void {
  for (const method of methods) {
    if (installed.has(method)) continue;
    installed.add(method);
    const write = console[method].bind(console);
    console[method] = (...args: unknown[]) => write(maskFreeText(format(...args), rules));
  }
}
