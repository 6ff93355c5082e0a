-- AlterTable
ALTER TABLE "agent_bindings" ADD COLUMN     "hidden_skills" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "hidden_skills" TEXT[] DEFAULT ARRAY[]::TEXT[];
