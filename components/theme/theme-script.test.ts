import { afterEach, describe, expect, it, vi } from "vitest";
import { isThemeChoice, resolveDark, THEME_SCRIPT, THEME_STORAGE_KEY } from "./theme-script";

describe("resolveDark", () => {
  it("follows the system unless a theme was chosen", () => {
    expect(resolveDark("system", true)).toBe(true);
    expect(resolveDark("system", false)).toBe(false);
    expect(resolveDark("light", true)).toBe(false);
    expect(resolveDark("dark", false)).toBe(true);
  });
  it("accepts only the three choices", () => {
    expect(isThemeChoice("dark")).toBe(true);
    expect(isThemeChoice("sepia")).toBe(false);
    expect(isThemeChoice(null)).toBe(false);
  });
});

describe("THEME_SCRIPT", () => {
  afterEach(() => vi.unstubAllGlobals());

  function run(stored: string | null, systemDark: boolean, storageThrows = false) {
    const classes = new Set<string>();
    const root = {
      classList: { toggle: (c: string, on: boolean) => (on ? classes.add(c) : classes.delete(c)) },
      style: { colorScheme: "" },
    };
    vi.stubGlobal("document", { documentElement: root });
    vi.stubGlobal("window", { matchMedia: () => ({ matches: systemDark }) });
    vi.stubGlobal("localStorage", {
      getItem: (k: string) => {
        if (storageThrows) throw new Error("blocked");
        return k === THEME_STORAGE_KEY ? stored : null;
      },
    });
    new Function(THEME_SCRIPT)();
    return { dark: classes.has("dark"), scheme: root.style.colorScheme };
  }

  it("matches resolveDark before React runs", () => {
    expect(run(null, true)).toEqual({ dark: true, scheme: "dark" });
    expect(run("light", true)).toEqual({ dark: false, scheme: "light" });
    expect(run("dark", false)).toEqual({ dark: true, scheme: "dark" });
    expect(run("system", false)).toEqual({ dark: false, scheme: "light" });
  });
  it("follows the system when storage is blocked", () => {
    expect(run(null, true, true)).toEqual({ dark: true, scheme: "dark" });
  });
});
