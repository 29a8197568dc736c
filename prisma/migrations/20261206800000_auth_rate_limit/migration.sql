-- The sign-in limiter's counts, shared by every server on this database (lib/auth/rate-limit-store.ts).
CREATE TABLE "auth_rate_limit" (
    "key" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(6) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "auth_rate_limit_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "auth_rate_limit_window_start_idx" ON "auth_rate_limit"("window_start");
