import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startEmbeddedPostgres } from "./embedded-postgres";

// How the app reaches its embedded cluster: over the Unix socket in the cluster's folder when
// that path can be one, else over 127.0.0.1; the TCP port stays open for other tools either way.

const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-embedded-"));
// As root the cluster runs as the `postgres` user, which must be able to reach its folder.
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** inet_server_addr() is null on a Unix-socket connection, the server's address over TCP. */
async function serverAddress(connectionString: string): Promise<string | null> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ addr: string | null }>("select host(inet_server_addr()) as addr");
    return rows[0]!.addr;
  } finally {
    await client.end();
  }
}

describe("the embedded PostgreSQL", () => {
  it("gives a URL over its Unix socket, and still listens on 127.0.0.1", async () => {
    const dataDir = path.join(scratch, "short");
    const db = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false });
    try {
      const url = new URL(db.url);
      expect(url.searchParams.get("host")).toBe(path.join(dataDir, "pg"));
      expect(await serverAddress(db.url)).toBeNull();
      url.search = "";
      expect(await serverAddress(url.toString())).toBe("127.0.0.1");
    } finally {
      await db.stop();
    }
  }, 120_000);

  it("falls back to TCP when the socket's path would be too long", async () => {
    const dataDir = path.join(scratch, "a-folder-name-long-enough-that-the-socket-path-cannot-fit-in-sun-path", "x".repeat(30));
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const db = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false });
    try {
      expect(new URL(db.url).searchParams.has("host")).toBe(false);
      expect(await serverAddress(db.url)).toBe("127.0.0.1");
    } finally {
      await db.stop();
    }
  }, 120_000);
});
