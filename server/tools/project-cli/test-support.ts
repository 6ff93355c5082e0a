import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { getPool } from "@/server/db";
import { createTestUser } from "@/test/helpers";
import { PROJECT_CLI_MODULES } from "./actions";
import { projectCliRouter, type CliOutput } from "./router";


/** One pooled connection for a test file, released after it. */
export function openTestConnection(): () => pg.PoolClient {
  let client: pg.PoolClient | null = null;
  beforeAll(async () => {
    client = await getPool().connect();
  });
  afterAll(() => client?.release());
  return () => client!;
}

/** Dispatches an action as `userId` through the real router and database. */
export function actAs(db: () => pg.ClientBase, userId: string, timeZone = "UTC") {
  return (action: string, input: unknown): Promise<CliOutput> => {
    const [module, method] = action.split(".") as [string, string];
    return projectCliRouter.dispatch({ ctx: { userId, db: db(), timeZone }, module, method, input, allowedModules: PROJECT_CLI_MODULES });
  };
}

export type Actor = ReturnType<typeof actAs>;

/**
 * Two fresh users' actors (`alice`, `bob`; filled before the file's tests), for the tests that
 * show a module's data never crosses from one user to another.
 */
export function twoActors(db: () => pg.ClientBase): { alice: Actor; bob: Actor; aliceId: string } {
  const actors = { aliceId: "" } as { alice: Actor; bob: Actor; aliceId: string };
  beforeAll(async () => {
    const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
    Object.assign(actors, { alice: actAs(db, alice.id), bob: actAs(db, bob.id), aliceId: alice.id });
  });
  return actors;
}

export function dataOf<T = Record<string, unknown>>(output: CliOutput): T {
  if (!output.ok) throw new Error(`expected success, got ${JSON.stringify(output.error)}`);
  return output.data as T;
}

export function errorOf(output: CliOutput): { code: string; message: string } & Record<string, unknown> {
  if (output.ok) throw new Error(`expected a failure, got ${JSON.stringify(output.data)}`);
  return output.error;
}
