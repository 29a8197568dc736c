// Prometheus text exposition format (version 0.0.4), pure: families of samples in, text out.

export interface Sample {
  labels?: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: "gauge" | "counter";
  samples: Sample[];
}

const escapeLabel = (v: string) => v.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
const escapeHelp = (v: string) => v.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");

function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

export function renderPrometheus(families: Family[]): string {
  let out = "";
  for (const f of families) {
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) {
      const labels = Object.entries(s.labels ?? {});
      const l = labels.length ? `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
      out += `${f.name}${l} ${formatValue(s.value)}\n`;
    }
  }
  return out;
}
