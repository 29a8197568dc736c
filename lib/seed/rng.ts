import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

/** A small seeded random source for the demo data: same seed, same records. */
export class Rng {
  private readonly gen;
  constructor(seed: number) {
    this.gen = xoroshiro128plus(seed);
  }
  float(): number {
    return uniformFloat64(this.gen);
  }
  int(from: number, to: number): number {
    return uniformInt(this.gen, from, to);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }
  chance(p: number): boolean {
    return this.float() < p;
  }
  /** a short lowercase hex string, for ids */
  hex(len: number): string {
    let s = "";
    while (s.length < len) s += this.int(0, 0xffff_ffff).toString(16).padStart(8, "0");
    return s.slice(0, len);
  }
}
