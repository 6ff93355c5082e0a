-- AlterTable
ALTER TABLE "runner_endpoints" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'runner',
ADD COLUMN     "options" JSONB NOT NULL DEFAULT '{}';
