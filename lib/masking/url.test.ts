import { describe, expect, it } from "vitest";
import { redactSecrets, redactUrlSecrets, secretsOf, urlOrigin } from "./url";

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

describe("error texts", () => {
  it("lose a configured sink's secret values wherever they appear, in any spelling", () => {
    const secrets = secretsOf("https://svc:P4ss%2Fw0rd@sink.example/ingest?api_key=abc123xyz&tenant=acme-prod&v=1", {
      Authorization: "Bearer tok_live_9f8e7d",
    });
    expect(secrets).toContain("abc123xyz");
    expect(secrets).toContain("P4ss/w0rd");
    expect(secrets).toContain("tok_live_9f8e7d");
    expect(secrets).not.toContain("1"); // too short to be worth blanking everywhere
    const echoed =
      'HTTP 404: Cannot POST /ingest?tenant=acme-prod&api_key=abc123xyz (user svc, pass P4ss/w0rd) {"token":"tok_live_9f8e7d"}';
    expect(redactSecrets(echoed, secrets)).toBe(
      'HTTP 404: Cannot POST /ingest?tenant=[redacted]&api_key=redacted (user svc, pass [redacted]) {"token":"[redacted]"}',
    );
  });

  it("lose credentials in any URL they hold, configured or not", () => {
    expect(redactSecrets("Request cannot be constructed from a URL that includes credentials: http://u:pw@h.example/x?q=1")).toBe(
      "Request cannot be constructed from a URL that includes credentials: http://redacted@h.example/x?q=1",
    );
    expect(redactSecrets("redirected to https://h.example/cb?access_token=zzz&state=ok&X-Amz-Signature=f00")).toBe(
      "redirected to https://h.example/cb?access_token=redacted&state=ok&X-Amz-Signature=redacted",
    );
    expect(redactSecrets("HTTP 500: upstream busy")).toBe("HTTP 500: upstream busy");
  });

  it("a chat webhook's path counts as its secret when asked", () => {
    expect(secretsOf("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX", {}, { path: true })).toEqual([
      "XXXXXXXXXXXXXXXXXXXXXXXX",
    ]);
  });
});
