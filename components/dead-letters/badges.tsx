import { Badge, type Tone } from "@/components/ui/badge";

const STATUS_TONE: Record<string, Tone> = {
  pending: "amber",
  approved: "blue",
  quarantined: "red",
  replayed: "green",
  purged: "slate",
};

const CLASS_TONE: Record<string, Tone> = { transient: "blue", transient_schema: "blue", poison: "red" };

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONE[status] ?? "slate"}>{status}</Badge>;
}

export function ClassBadge({ failureClass, title }: { failureClass: string; title?: string | null }) {
  return (
    <Badge tone={CLASS_TONE[failureClass] ?? "slate"} title={title ?? undefined}>
      {failureClass.replace("_", " ")}
    </Badge>
  );
}

export function KindBadge({ kind }: { kind: string }) {
  return <Badge tone={kind === "spatial" ? "violet" : "slate"}>{kind === "afc" ? "AFC" : kind}</Badge>;
}
