-- dispatch_accept_run (sql/functions/dispatch_accept_run.sql) now writes runs.reserved_tokens, and
-- dispatch_run_limits (sql/functions/dispatch_run_limits.sql) counts the reservations of the runs in
-- progress against the daily token budgets (issue #46).

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "reserved_tokens" BIGINT;
