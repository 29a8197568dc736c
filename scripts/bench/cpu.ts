// CPU time of the processes a benchmark compares, from /proc (Linux): on a machine shared with other work, wall-clock
// rates move with the load, while the CPU seconds a path spends per record hardly do. Where /proc is missing
// (another OS) every reading is null and the benchmarks print wall-clock figures only.
import { readdirSync, readFileSync } from "node:fs";

/** /proc's clock ticks per second (USER_HZ): 100 on every Linux architecture Node runs on. */
const TICKS = 100;

/** utime + stime of a process (all its threads, also finished ones) in seconds; null when it is gone or unreadable. */
export function processCpu(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: the fields after it start past the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of the man page (utime, stime) are 11 and 12 here: the list starts at field 3.
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
}

/** A process and its descendants (a server that forks workers): their CPU seconds together. */
export function treeCpu(root: number): number | null {
  const pids = allPids();
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  let total: number | null = null;
  const visit = (pid: number) => {
    const cpu = processCpu(pid);
    if (cpu !== null) total = (total ?? 0) + cpu;
    for (const c of children.get(pid) ?? []) visit(c);
  };
  visit(root);
  return total;
}

/**
 * The CPU seconds the PostgreSQL backends of one database spend between start() and stop(). Backends come and go
 * (a pool opens connections under load), so /proc is read every `everyMs` and each backend's last reading kept:
 * a backend that ends loses at most its last interval. A backend is known by its title
 * (`postgres: <cluster>: <user> <database> <client> …`, update_process_title's default), read from /proc.
 */
export class BackendMeter {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly database: string,
    private readonly everyMs = 200,
  ) {}

  private backends(): number[] {
    const needle = ` ${this.database} `;
    return allPids().filter((pid) => {
      try {
        const title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return title.startsWith("postgres: ") && title.includes(needle);
      } catch {
        return false;
      }
    });
  }

  private sample(baseline: boolean): void {
    for (const pid of this.backends()) {
      const cpu = processCpu(pid);
      if (cpu === null) continue;
      // A backend that appears after start() counts from zero: its start-up is part of the work measured.
      if (!this.first.has(pid)) this.first.set(pid, baseline ? cpu : 0);
      this.last.set(pid, cpu);
    }
  }

  start(): this {
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), this.everyMs);
    this.timer.unref();
    return this;
  }

  /** CPU seconds since start(), and how many backends did the work; null where /proc cannot be read. */
  stop(): { seconds: number; backends: number } | null {
    this.sample(false);
    if (this.timer) clearInterval(this.timer);
    if (this.last.size === 0) return null;
    let seconds = 0;
    let backends = 0;
    for (const [pid, cpu] of this.last) {
      const used = cpu - (this.first.get(pid) ?? 0);
      seconds += used;
      if (used > 0) backends++;
    }
    return { seconds, backends };
  }
}
