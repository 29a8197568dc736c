// One GEOS (geos-wasm, GEOS 3.13 compiled to WebAssembly) per process, with our own reentrant context.
//
// Why our own context instead of the one geos-wasm initialises: geos-wasm's default error handler throws a JS
// Error from inside the wasm call. That unwinds through C++ frames without running their destructors (leaking
// wasm heap on every invalid input) and its config only applies to whoever calls initGeosJs() first. A context
// from GEOS_init_r() whose error handler only records the message makes every GEOS failure an ordinary NULL / 0
// return that the caller checks, and is independent of other users of the module.
import initGeosJs from "geos-wasm";
import type { RepairMethod } from "@/lib/vocabulary/record";

export type GeosLib = Awaited<ReturnType<typeof initGeosJs>>;

/** geos-wasm exposes Emscripten's addFunction at runtime but its typings omit it. */
type AddFunction = (fn: (message: number, userData: number) => void, signature: string) => number;

export class GeosError extends Error {
  constructor(operation: string, detail: string | null) {
    super(`GEOS ${operation} failed${detail ? `: ${detail}` : ""}`);
    this.name = "GeosError";
  }
}

export class Geos {
  /** 4-byte out-parameters and an 8-byte double, reused by every call (calls are synchronous). */
  readonly outA: number;
  readonly outB: number;
  readonly outDouble: number;
  private scratchPtr = 0;
  private scratchBytes = 0;
  private lastError: string | null = null;
  private aborted = false;
  private readonly params = new Map<RepairMethod, number>();

  constructor(
    readonly lib: GeosLib,
    readonly ctx: number,
  ) {
    this.outA = this.malloc(4);
    this.outB = this.malloc(4);
    this.outDouble = this.malloc(8);
  }

  /**
   * The module aborted (out of memory: std::bad_alloc): every later call throws. geos-wasm loads one module per
   * JS realm, so only a new worker thread brings GEOS back (normalize-pool.ts replaces the thread).
   */
  get broken(): boolean {
    return this.aborted;
  }

  markBroken(): void {
    this.aborted = true;
  }

  /** Called from the wasm error callback. */
  recordError(message: string): void {
    this.lastError = message;
  }

  /** The message of the last GEOS error since the previous call, then forgets it. */
  takeError(): string | null {
    const message = this.lastError;
    this.lastError = null;
    return message;
  }

  malloc(bytes: number): number {
    const ptr = this.lib.Module._malloc(bytes);
    if (ptr === 0) throw new GeosError("malloc", `could not allocate ${bytes} bytes`);
    return ptr;
  }

  free(ptr: number): void {
    if (ptr !== 0) this.lib.Module._free(ptr);
  }

  destroy(geometry: number): void {
    if (geometry !== 0) this.lib.GEOSGeom_destroy_r(this.ctx, geometry);
  }

  /**
   * A reusable buffer of at least `bytes` bytes for coordinate copies. Growing it frees the old one, so a
   * caller must finish with the pointer before asking again. Keeping one buffer avoids a malloc/free pair per
   * ring; the 100k-vertex case keeps ~2.4 MB, which is the price of not churning the wasm allocator.
   */
  scratch(bytes: number): number {
    if (bytes > this.scratchBytes) {
      this.free(this.scratchPtr);
      const size = Math.max(bytes, 2 * this.scratchBytes, 4096);
      this.scratchPtr = this.malloc(size);
      this.scratchBytes = size;
    }
    return this.scratchPtr;
  }

  /** Read after any GEOS call: the views are replaced whenever wasm memory grows. */
  get f64(): Float64Array {
    return this.lib.Module.HEAPF64;
  }

  get u32(): Uint32Array {
    return this.lib.Module.HEAPU32;
  }

  /** Cached GEOSMakeValidParams per method (keepCollapsed = false: collapsed parts are dropped, as in JTS). */
  makeValidParams(method: RepairMethod): number {
    const cached = this.params.get(method);
    if (cached !== undefined) return cached;
    const { lib, ctx } = this;
    const params = lib.GEOSMakeValidParams_create_r(ctx);
    if (params === 0) throw new GeosError("GEOSMakeValidParams_create", this.takeError());
    const id =
      method === "structure" ? lib.GEOSMakeValidMethods.GEOS_MAKE_VALID_STRUCTURE : lib.GEOSMakeValidMethods.GEOS_MAKE_VALID_LINEWORK;
    lib.GEOSMakeValidParams_setMethod_r(ctx, params, id);
    lib.GEOSMakeValidParams_setKeepCollapsed_r(ctx, params, 0);
    this.params.set(method, params);
    return params;
  }

  /** Bytes of wasm linear memory (it never shrinks). */
  heapBytes(): number {
    return this.lib.Module.HEAPU8.length;
  }

  /**
   * Diagnostic for leak checks (tests, bench): bytes in use, i.e. the heap size minus the free space 64 KiB
   * blocks can claim before the heap would have to grow. The heap size alone hides leaks in its free space.
   * Costs one heap growth step per call; never call it on a hot path.
   */
  usedHeapBytes(): number {
    const block = 64 * 1024;
    const blocks: number[] = [];
    const size = this.heapBytes();
    try {
      for (;;) {
        const ptr = this.malloc(block);
        if (this.heapBytes() !== size) {
          this.free(ptr);
          return size - blocks.length * block;
        }
        blocks.push(ptr);
      }
    } finally {
      for (const ptr of blocks) this.free(ptr);
    }
  }
}

async function createGeos(): Promise<Geos> {
  // Silence the shared context geos-wasm creates for itself; we never use it.
  const lib = await initGeosJs({ errorHandler: () => undefined, noticeHandler: () => undefined });
  const addFunction = (lib.Module as unknown as { addFunction?: AddFunction }).addFunction;
  if (typeof addFunction !== "function") throw new Error("geos-wasm: Module.addFunction is not available");
  const ctx = lib.GEOS_init_r();
  if (ctx === 0) throw new Error("geos-wasm: GEOS_init_r returned NULL");
  const geos = new Geos(lib, ctx);
  const onError = addFunction((message) => geos.recordError(lib.Module.UTF8ToString(message)), "vii");
  // Notices (e.g. from GEOSisValid) carry nothing we do not get from GEOSisValidDetail.
  const onNotice = addFunction(() => undefined, "vii");
  lib.GEOSContext_setErrorMessageHandler_r(ctx, onError, 0);
  lib.GEOSContext_setNoticeMessageHandler_r(ctx, onNotice, 0);
  return geos;
}

// Kept on globalThis rather than in a module variable: Next.js dev re-evaluates modules on every edit, and each
// evaluation would otherwise create (and never free) another GEOS context.
const KEY = Symbol.for("redrive.spatial.geos");
type GeosHolder = { [KEY]?: Promise<Geos> };
const holder = globalThis as GeosHolder;

/** Whether this thread's GEOS has aborted (see Geos.broken): its owner should stop using the thread. */
export async function geosBroken(): Promise<boolean> {
  const instance = holder[KEY];
  return instance ? (await instance.catch(() => null))?.broken === true : false;
}

/** The process-wide GEOS; the first call compiles the wasm module (~60 ms), later calls are free. */
export function getGeos(): Promise<Geos> {
  let instance = holder[KEY];
  if (!instance) {
    instance = createGeos().catch((error: unknown) => {
      delete holder[KEY]; // let a later call retry instead of caching the failure forever
      throw error;
    });
    holder[KEY] = instance;
  }
  return instance;
}
