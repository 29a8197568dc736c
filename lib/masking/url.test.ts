import { describe, expect, it } from "vitest";
import { redactUrlSecrets, urlOrigin } from "./url";

describe("configured URLs as readers see them", () => {
  it("lose their userinfo and query values, keep origin and path", () => {
    expect(redactUrlSecrets("https://svc:P4ssw0rd@sink.example:8443/ingest?api_key=abc123&x=1&x=2")).toBe(
      "https://redacted@sink.example:8443/ingest?api_key=redacted&x=redacted",
    );
    expect(redactUrlSecrets("http://sink.example/ingest")).toBe("http://sink.example/ingest");
    expect(redactUrlSecrets("not a url")).toBe("redacted");
  });

  it("or show only where they point (a chat webhook's secret is its path)", () => {
    expect(urlOrigin("https://hooks.slack.com/services/T000/B000/XXXX")).toBe("https://hooks.slack.com/…");
    expect(urlOrigin("http://127.0.0.1:9000")).toBe("http://127.0.0.1:9000");
  });
});
