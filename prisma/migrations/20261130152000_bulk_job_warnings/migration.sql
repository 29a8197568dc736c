-- AlterTable
ALTER TABLE "bulk_job" ADD COLUMN     "warnings" JSONB NOT NULL DEFAULT '{}';
