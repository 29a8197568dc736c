// Small display helpers for the replay pages (client-safe).

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "—";
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

export function formatTime(iso: string | null): string {
  // Every time Redrive shows is UTC and says so: a bare wall-clock time (an ETA) reads as the viewer's own.
  return iso ? `${iso.replace("T", " ").slice(0, 19)} UTC` : "—";
}

export const fmt = (n: number) => n.toLocaleString("en");
