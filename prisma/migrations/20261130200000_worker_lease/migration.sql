-- Each worker's own lease, so the sweeper judges a worker by the lease it renews on, not by the sweeper's.
ALTER TABLE "worker" ADD COLUMN "lease_ms" INTEGER NOT NULL DEFAULT 30000;
