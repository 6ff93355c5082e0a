import { fileURLToPath } from "node:url";

/** Points the Prisma CLI at a stand-in engine binary unless a real one is configured. */
export function resolveSchemaEngineStub(): void {
  if (!process.env.PRISMA_SCHEMA_ENGINE_BINARY) {
    process.env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(new URL("../../package.json", import.meta.url));
  }
}
