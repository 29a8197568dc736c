-- A source's last failure as a category (lib/sources/error-category.ts): what readers see instead of the broker's own
-- words in last_error, which admins alone see. Null for failures recorded before; they read as "other".
ALTER TABLE "source" ADD COLUMN "last_error_category" TEXT;
