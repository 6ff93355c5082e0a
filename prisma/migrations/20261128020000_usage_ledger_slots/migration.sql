-- The ledger's line for a day, user, key, runner and model is split over a few rows (slot): the
-- statement that closes each run adds to its line, and with one row every run end waited for the
-- commit of the run end before it (row lock). Readers sum the slots.
-- AlterTable
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_pkey",
ADD COLUMN     "slot" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("day", "user_id", "api_key_id", "runner", "model", "slot");
