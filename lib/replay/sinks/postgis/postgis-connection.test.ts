import { describe, expect, it } from "vitest";
import { postgisUrlParts, postgisUrlRefusal } from "./postgis-connection";

describe("the hosts a PostGIS sink URL makes pg connect to", () => {
  it("reads every host the driver would use: the URL's, host= and hostaddr=, a list, a percent-encoded socket path", () => {
    const hosts = (url: string) => {
      const parts = postgisUrlParts(url);
      return typeof parts === "string" ? parts : parts.hosts;
    };
    expect(hosts("postgresql://u:p@db.example.com:6543/gis")).toEqual(["db.example.com"]);
    expect(hosts("postgresql://u@db.example.com/gis?host=127.0.0.1")).toEqual(["127.0.0.1"]);
    expect(hosts("postgresql://u@db.example.com/gis?hostaddr=10.0.0.5")).toEqual(["db.example.com", "10.0.0.5"]);
    expect(hosts("postgresql://u@a.example.com,127.0.0.1/gis")).toEqual(["a.example.com", "127.0.0.1"]);
    expect(hosts("postgresql://u@%2Fvar%2Frun%2Fpostgresql/gis")).toEqual(["/var/run/postgresql"]);
    expect(hosts("postgresql://u@[::1]:5432/gis")).toEqual(["::1"]);
  });

  it("refuses query parameters that read the server's files or set the session", () => {
    for (const param of ["sslrootcert=/etc/passwd", "sslkey=/etc/shadow", "sslcert=/x", "options=-c%20search_path%3Dx"]) {
      expect(postgisUrlParts(`postgresql://u@db.example.com/gis?${param}`)).toMatch(/^the query parameter "\w+" is not supported/);
    }
    expect(postgisUrlParts("postgresql://u@db.example.com/gis?sslmode=require")).toMatchObject({ hosts: ["db.example.com"], port: 5432 });
  });

  it("refuses loopback, private and socket targets however the URL names them, before any connection", async () => {
    const loopback = "refused: 127.0.0.1 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.1";
    expect(await postgisUrlRefusal("postgresql://postgres@127.0.0.1:5432/postgres")).toBe(loopback);
    expect(await postgisUrlRefusal("postgresql://postgres@93.184.215.14/gis?host=127.0.0.1")).toBe(loopback);
    expect(await postgisUrlRefusal("postgresql://postgres@93.184.215.14/gis?hostaddr=127.0.0.1")).toBe(loopback);
    expect(await postgisUrlRefusal("postgresql://postgres@93.184.215.14,127.0.0.1/gis")).toBe(loopback);
    expect(await postgisUrlRefusal("postgresql://postgres@10.1.2.3/gis")).toMatch(/^refused: 10\.1\.2\.3 is a private address/);
    expect(await postgisUrlRefusal("postgresql://postgres@localhost/gis")).toMatch(
      /^refused: localhost resolves to .*, a loopback address/,
    );
    expect(await postgisUrlRefusal("postgresql://postgres@%2Fvar%2Frun%2Fpostgresql/gis")).toBe(
      "refused: /var/run/postgresql is a local socket path, which no sink or webhook may use",
    );
    expect(await postgisUrlRefusal("postgresql://postgres@93.184.215.14/gis")).toBeNull();
  });
});
