-- AlterTable
ALTER TABLE "attachments" ADD COLUMN     "file_name" TEXT,
ADD COLUMN     "text" TEXT;
