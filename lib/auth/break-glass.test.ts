import { describe, expect, it } from "vitest";
import { breakGlassChangeRefusal, passwordSessionAllowed, passwordSignInAllowed } from "./break-glass";

const off = { passwordSignIn: false, breakGlassEmail: "root@corp.example" };
const on = { passwordSignIn: true, breakGlassEmail: "root@corp.example" };

describe("break-glass", () => {
  it("lets only the break-glass e-mail try a password while password sign-in is off", () => {
    expect(passwordSignInAllowed(off, " Root@Corp.example ")).toBe(true);
    expect(passwordSignInAllowed(off, "ann@corp.example")).toBe(false);
    expect(passwordSignInAllowed(on, "ann@corp.example")).toBe(true);
    expect(passwordSignInAllowed({ passwordSignIn: false, breakGlassEmail: null }, "root@corp.example")).toBe(false);
  });

  it("gives the break-glass account a password session only while it is an admin", () => {
    expect(passwordSessionAllowed(off, { email: "root@corp.example", role: "admin" })).toBe(true);
    expect(passwordSessionAllowed(off, { email: "root@corp.example", role: "analyst" })).toBe(false);
    expect(passwordSessionAllowed(off, { email: "ann@corp.example", role: "admin" })).toBe(false);
    expect(passwordSessionAllowed(on, { email: "root@corp.example", role: "analyst" })).toBe(true);
  });

  it("refuses demoting or disabling the break-glass account while password sign-in is off, naming the field and the settings", () => {
    const root = { email: "root@corp.example" };
    const demoted = breakGlassChangeRefusal(off, root, { role: "analyst", disabled: false });
    expect(demoted?.path).toBe("role");
    expect(demoted?.message).toMatch(/passwordSignIn/);
    expect(breakGlassChangeRefusal(off, root, { role: "admin", disabled: true })?.path).toBe("disabled");
    expect(breakGlassChangeRefusal(off, root, { role: "admin", disabled: false })).toBeNull();
    expect(breakGlassChangeRefusal(on, root, { role: "analyst", disabled: true })).toBeNull();
    expect(breakGlassChangeRefusal(off, { email: "ann@corp.example" }, { role: "analyst", disabled: true })).toBeNull();
  });
});
