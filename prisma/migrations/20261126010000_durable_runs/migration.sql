-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "generation" JSONB;
