import { AFC_SOURCES, STATIONS } from "./places";
import type { Rng } from "./rng";

// AFC dead-letter records as the fare system's Python producers store them. Taps are written as JSON text
// (not objects) so number lexemes like 275.0 reach the identity hash exactly as the producer sent them.

interface Tap {
  text: string; // the raw_payload JSON text
}

const q = (s: string) => JSON.stringify(s);

/** A Luhn-valid 16-digit test PAN (the 4111… family), to exercise masking. */
function testPan(rng: Rng): string {
  const digits = [4, 1, 1, 1, ...Array.from({ length: 11 }, () => rng.int(0, 9))];
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let v = digits[14 - i] as number;
    if (i % 2 === 0) {
      v *= 2;
      if (v > 9) v -= 9;
    }
    sum += v;
  }
  return [...digits, (10 - (sum % 10)) % 10].join("");
}

type Make = (rng: Rng, f: { eventId: string; deviceId: string; fare: number; ts: string }) => Tap;

const tap = (fields: [string, string][]): Tap => ({ text: `{${fields.map(([k, v]) => `${q(k)}:${v}`).join(",")}}` });

export const AFC_SCENARIOS: Record<string, { weight: number; make: Make; retries?: number }> = {
  extra_key: {
    weight: 20,
    make: (rng, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", String(f.fare)],
        ["tap_timestamp", q(f.ts)],
        ["battery_pct", String(rng.int(3, 99))],
      ]),
  },
  string_fare: {
    weight: 15,
    make: (_r, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", q(String(f.fare))],
        ["tap_timestamp", q(f.ts)],
      ]),
  },
  negative_fare: {
    weight: 8,
    make: (_r, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", String(-f.fare)],
        ["tap_timestamp", q(f.ts)],
      ]),
  },
  float_fare: {
    weight: 6,
    make: (_r, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", `${f.fare}.0`],
        ["tap_timestamp", q(f.ts)],
      ]),
  },
  bad_timestamp: {
    weight: 10,
    make: (rng, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", String(f.fare)],
        [
          "tap_timestamp",
          q(rng.pick([f.ts.replace("T", " ").replace(/\.\d+Z$/, ""), "2026-13-45T25:61:00Z", "yesterday 08:15", f.ts.slice(0, 10)])),
        ],
      ]),
  },
  missing_event_id: {
    weight: 5,
    make: (_r, f) =>
      tap([
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", String(f.fare)],
        ["tap_timestamp", q(f.ts)],
      ]),
  },
  missing_device_id: {
    weight: 4,
    make: (_r, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["fare_amount_cents", String(f.fare)],
        ["tap_timestamp", q(f.ts)],
      ]),
  },
  card_data: {
    weight: 4,
    make: (rng, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", String(f.fare)],
        ["tap_timestamp", q(f.ts)],
        ["card_pan", q(testPan(rng))],
        ["account_ref", q(`acct-${rng.hex(10)}`)],
      ]),
  },
  exhausted: {
    weight: 4,
    retries: 3,
    make: (_r, f) =>
      tap([
        ["event_id", q(f.eventId)],
        ["device_id", q(f.deviceId)],
        ["fare_amount_cents", q(String(f.fare))],
        ["tap_timestamp", q(f.ts)],
        ["firmware", q("4.2.1")],
      ]),
  },
};

const TABLE = Object.entries(AFC_SCENARIOS).flatMap(([name, s]) => Array<string>(s.weight).fill(name));

export interface GeneratedAfc {
  /** the record's exact JSON text */
  text: string;
  scenario: string;
}

export function generateAfc(rng: Rng, i: number, baseMs: number, spanMs: number): GeneratedAfc {
  const scenario = rng.pick(TABLE);
  const def = AFC_SCENARIOS[scenario] as (typeof AFC_SCENARIOS)[string];
  const station = rng.pick(STATIONS);
  const tapMs = baseMs + Math.floor(rng.float() * spanMs);
  const f = {
    eventId: `tap-${rng.hex(8)}-${i.toString(36)}`,
    // few devices per station, so one device has many taps (per-entity ordering matters on replay)
    deviceId: `${station}-gate-${rng.int(1, 24).toString().padStart(2, "0")}`,
    fare: rng.pick([180, 220, 250, 275, 290, 310, 350, 420]),
    ts: new Date(tapMs).toISOString(),
  };
  const payload = def.make(rng, f);
  const source = rng.pick(AFC_SOURCES);
  const retries = def.retries ?? (rng.chance(0.1) ? rng.int(1, 2) : 0);
  const firstSeen = new Date(tapMs + rng.int(1, 600) * 1000).toISOString();
  const text = `{"kind":"afc","source":${q(source)},"raw_payload":${payload.text},"retry_count":${retries},"first_seen_utc":${q(firstSeen)}}`;
  return { text, scenario };
}
