// postinstall: generate the Prisma client without Prisma's binary download.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/node_modules/prisma`)) process.exit(0);
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? `${root}/package.json`,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
};
const r = spawnSync(process.execPath, [`${root}/node_modules/prisma/build/index.js`, "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(r.status ?? 1);
