-- dispatch_accept_run (sql/functions/dispatch_accept_run.sql) now writes trace_parent and trace_state,
-- and dispatch_run_json (sql/functions/dispatch_run_json.sql) answers them.
-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "trace_parent" TEXT,
ADD COLUMN     "trace_state" TEXT;
