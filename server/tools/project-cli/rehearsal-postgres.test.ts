import pg from "pg";
import { describe, expect, it } from "vitest";
import { startRehearsalPostgres } from "./rehearsal-postgres";

describe("the rehearsal's stand-in database", () => {
  it("lets pg connect and answers its statements with no rows", async () => {
    const db = new pg.Client({ connectionString: await startRehearsalPostgres() });
    await db.connect();
    try {
      const [params, simple] = await Promise.all([db.query("select $1::int as n", [1]), db.query("begin")]);
      expect(params.rows).toEqual([]);
      expect(simple.rows).toEqual([]);
    } finally {
      await db.end();
    }
  });
});
