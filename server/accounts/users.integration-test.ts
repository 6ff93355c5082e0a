import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { signInOverHttp } from "@/test/http-session";
import { startOwnedDatabase, type OwnedDatabase } from "@/test/owned-database";
import { getPool } from "@/server/db";
import { changeOwnPassword, setUserRole } from "./service/users";

describe("setUserRole", () => {
  it("refuses an admin removing their own admin role, and leaves it in place", async () => {
    const admin = await createTestUser({ role: "admin" });
    await expect(setUserRole({ actorId: admin.id, id: admin.id, role: "user" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "You cannot remove your own admin role",
    });
    expect(await setUserRole({ actorId: admin.id, id: admin.id, role: "admin" })).toMatchObject({ id: admin.id, role: "admin" });
  });

  it("lets an admin change another user's role either way", async () => {
    const [admin, other] = await Promise.all([createTestUser({ role: "admin" }), createTestUser()]);
    expect(await setUserRole({ actorId: admin.id, id: other.id, role: "admin" })).toMatchObject({ id: other.id, role: "admin" });
    expect(await setUserRole({ actorId: admin.id, id: other.id, role: "user" })).toMatchObject({ id: other.id, role: "user" });
  });
});

// On a database of its own, where two admins are the only ones: the shared test database has
// admins from every other test, so "the last active admin" can only be reached here.
describe("deactivating admins", () => {
  let db: OwnedDatabase;
  let server: ExtraServer | undefined;
  const first = { DISPATCH_ADMIN_EMAIL: "only.admin@example.com", DISPATCH_ADMIN_PASSWORD: "the only admin's password" };

  beforeAll(async () => {
    db = await startOwnedDatabase();
  }, 90_000);

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await db?.close();
  });

  it("never leaves no active admin, even when two admins deactivate each other at once", { timeout: 120_000 }, async () => {
    server = await startExtraServer({ DATABASE_URL: db.url, ...first });
    const post = (path: string, input: unknown, cookie: string) =>
      fetch(`${server!.url}/api/trpc/${path}`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ json: input }) });
    const idOf = async (res: Response) => ((await res.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
    const a = (await signInOverHttp(first.DISPATCH_ADMIN_EMAIL, first.DISPATCH_ADMIN_PASSWORD, server.url))!;
    const created = await post("users.create", { email: "second.admin@example.com", password: "the second admin's password", role: "admin" }, a);
    expect(created.status).toBe(200);
    const b = (await signInOverHttp("second.admin@example.com", "the second admin's password", server.url))!;
    const { rows } = await pg(db.url, "select id from users where email = $1", [first.DISPATCH_ADMIN_EMAIL]);
    const [aId, bId] = [rows[0]!.id as string, await idOf(created)];

    const answers = await Promise.all([post("users.setActive", { id: bId, active: false }, a), post("users.setActive", { id: aId, active: false }, b)]);
    // One wins. The other is refused: as the last active admin (409), or, when the winner's commit
    // came first, because its own session now belongs to a deactivated user (401).
    expect(answers.map((r) => r.status).sort()).toEqual([200, expect.toBeOneOf([401, 409])]);
    const refused = answers.find((r) => r.status !== 200)!;
    if (refused.status === 409) expect(JSON.stringify(await refused.json())).toContain("This is the last active admin: make another user an admin before deactivating this one");
    const active = await pg(db.url, "select email from users where role = 'admin' and disabled_at is null", []);
    expect(active.rows).toHaveLength(1);
  });
});

async function pg(url: string, text: string, values: unknown[]) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query<Record<string, unknown>>(text, values);
  } finally {
    await client.end();
  }
}

describe("changeOwnPassword", () => {
  const change = (userId: string, current: string, password = "a-new-password") => changeOwnPassword({ userId, current, password, confirm: password, address: null });

  it("holds back guessing the current password as sign-in does: after the free failures even the right one waits", async () => {
    const user = await createTestUser();
    for (let i = 0; i < 5; i++) expect(await change(user.id, `wrong-${i}`)).toEqual({ ok: false, problem: "wrong_current" });
    const held = await change(user.id, user.password);
    expect(held).toMatchObject({ ok: false, problem: { tooManySeconds: expect.any(Number) } });
    expect((held as { problem: { tooManySeconds: number } }).problem.tooManySeconds).toBeGreaterThan(0);
  });

  it("changes the password and ends the user's sessions; a deactivated user cannot", async () => {
    const user = await createTestUser();
    const { rows: before } = await getPool().query<{ v: number }>(`select session_version as v from users where id = $1`, [user.id]);
    expect(await change(user.id, user.password)).toEqual({ ok: true, email: user.email });
    const { rows: after } = await getPool().query<{ v: number }>(`select session_version as v from users where id = $1`, [user.id]);
    expect(after[0]!.v).toBe(before[0]!.v + 1);
    expect(await change(user.id, user.password)).toEqual({ ok: false, problem: "wrong_current" });
    await getPool().query(`update users set disabled_at = now() where id = $1`, [user.id]);
    await expect(change(user.id, "a-new-password", "a-third-password")).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
