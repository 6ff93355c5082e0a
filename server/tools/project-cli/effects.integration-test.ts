import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { createTestUser } from "@/test/helpers";
import { mintToolCredential } from "./credential";
import { runProjectCli } from "./tool";

// Writes happen once per tool call, through the real CLI child and the tool gateway on the real
// database: a repeat (a step repeated after a crash, a runner retrying) answers the first result
// and changes nothing again, whether it comes after the first, alongside it, or after the process
// that ran the first died before passing its answer on.

type User = Awaited<ReturnType<typeof createTestUser>>;
type EventData = { event: { id: string; title: string; owner: { email: string } } };

let alice: User;
let bob: User;
let carol: User;
beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
});

const create = (title: string, attendees: string[] = []) => ({
  module: "calendar",
  method: "create",
  input: { title, start_at: "2026-05-04T10:00:00+02:00", duration_minutes: 30, attendees },
});

const call = (userId: string, runId: string, toolCallId: string, args: unknown) => runProjectCli({ userId, runId, toolCallId, args, timeZone: "Europe/Paris" });

async function eventsTitled(title: string): Promise<{ id: string; ownerId: string }[]> {
  const { rows } = await getPool().query(`select id, owner_id as "ownerId" from calendar_events where title = $1 order by created_at`, [title]);
  return rows;
}

async function invitesTo(eventId: string): Promise<{ inviteeId: string }[]> {
  const { rows } = await getPool().query(`select invitee_id as "inviteeId" from calendar_invites where event_id = $1`, [eventId]);
  return rows;
}

const eventOf = (output: { result: { data?: unknown } | null }) => (output.result!.data as EventData).event;

describe("a project_cli write repeated with its tool call id", () => {
  it("creates one event and one invitation, shares once, and answers every repeat with the first answer", async () => {
    const title = `Budget review ${randomUUID().slice(0, 8)}`;
    const runId = randomUUID();
    const first = await call(alice.id, runId, "call_create", create(title, [bob.email]));
    expect(first.output).toMatchObject({ status: "success", tool_call_id: "call_create" });
    const again = await call(alice.id, runId, "call_create", create(title, [bob.email]));
    expect(again).toEqual(first);
    const [event, ...more] = await eventsTitled(title);
    expect(more).toEqual([]);
    expect(eventOf(first.output).id).toBe(event!.id);
    expect(await invitesTo(event!.id)).toEqual([{ inviteeId: bob.id }]);

    // Shared once: the repeat is not "already invited", it is the first answer.
    const share = { module: "calendar", method: "share", input: { event_id: event!.id, email: carol.email } };
    const shared = await call(alice.id, runId, "call_share", share);
    expect(shared.output.result?.data).toMatchObject({ already_invited: false, invite: { email: carol.email, status: "pending" } });
    expect(await call(alice.id, runId, "call_share", share)).toEqual(shared);
    expect((await invitesTo(event!.id)).map((i) => i.inviteeId).sort()).toEqual([bob.id, carol.id].sort());

    // Another call (another id) is another write.
    const second = await call(alice.id, runId, "call_create_2", create(title));
    expect(eventOf(second.output).id).not.toBe(event!.id);
    expect(await eventsTitled(title)).toHaveLength(2);
  });

  it("runs the handler once for concurrent repeats, and each gets the first answer", async () => {
    const title = `Standup ${randomUUID().slice(0, 8)}`;
    const runId = randomUUID();
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(alice.id, runId, "call_race", create(title, [bob.email]))));
    expect(answers[0]!.output.status).toBe("success");
    for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
    const events = await eventsTitled(title);
    expect(events).toHaveLength(1);
    expect(await invitesTo(events[0]!.id)).toHaveLength(1);
  });

  it("keeps each user's and each run's calls apart: a guessed tool call id reads back nothing", async () => {
    const title = `Offsite ${randomUUID().slice(0, 8)}`;
    const runId = randomUUID();
    const alices = await call(alice.id, runId, "call_guess", create(title));
    // Bob naming Alice's run and call id runs his own call, in his own calendar.
    const bobs = await call(bob.id, runId, "call_guess", create(title));
    expect(eventOf(bobs.output).owner.email).toBe(bob.email);
    expect(eventOf(bobs.output).id).not.toBe(eventOf(alices.output).id);
    // The same id in another run is another call.
    const later = await call(alice.id, randomUUID(), "call_guess", create(title));
    expect(eventOf(later.output).id).not.toBe(eventOf(alices.output).id);
    expect((await eventsTitled(title)).map((e) => e.ownerId)).toEqual([alice.id, bob.id, alice.id]);
  });

  it("answers a refusal again as it was, and refuses an id reused for another call without running it", async () => {
    const runId = randomUUID();
    const missing = { module: "calendar", method: "update", input: { event_id: randomUUID(), title: "Nowhere" } };
    const refused = await call(alice.id, runId, "call_missing", missing);
    expect(refused.output).toMatchObject({ status: "failure", error: { code: "EVENT_NOT_FOUND" } });
    expect(await call(alice.id, runId, "call_missing", missing)).toEqual(refused);

    const title = `Reused ${randomUUID().slice(0, 8)}`;
    const reused = await call(alice.id, runId, "call_missing", create(title));
    expect(reused.output).toMatchObject({ status: "failure", error: { code: "TOOL_CALL_ID_REUSED" } });
    expect(await eventsTitled(title)).toEqual([]);
  });

  it("leaves reads unrecorded", async () => {
    const runId = randomUUID();
    const read = await call(alice.id, runId, "call_read", { module: "memory", method: "read", input: {} });
    expect(read.output.status).toBe("success");
    const { rows } = await getPool().query(`select 1 from tool_effects where run_id = $1`, [runId]);
    expect(rows).toEqual([]);
  });
});

describe("a process that dies after a write commits and before its answer reaches the run", () => {
  it("leaves one event, and the repeat on another process answers with it", async () => {
    const title = `Crash window ${randomUUID().slice(0, 8)}`;
    const runId = randomUUID();
    const args = create(title, [bob.email]);
    const credential = mintToolCredential({ userId: alice.id, runId, modules: ["calendar"], toolCall: { id: "call_crash" } });
    const request = JSON.stringify({ credential, module: args.module, method: args.method, time_zone: "Europe/Paris", input: args.input });
    const root = path.resolve(import.meta.dirname, "../../..");
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", createRequire(import.meta.url).resolve("tsx"), path.join(root, "test/tool-call-then-die.ts")], {
      cwd: root,
      env: process.env,
      stdio: ["pipe", "pipe", "inherit"],
    });
    let printed = "";
    child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    child.stdin.end(request);
    const exit = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    expect(exit).toBe("SIGKILL");
    expect(printed).toBe("");
    const [committed, ...more] = await eventsTitled(title);
    expect(committed).toBeDefined();
    expect(more).toEqual([]);

    const repeat = await call(alice.id, runId, "call_crash", args);
    expect(repeat.output.status).toBe("success");
    expect(eventOf(repeat.output).id).toBe(committed!.id);
    expect(await eventsTitled(title)).toHaveLength(1);
    expect(await invitesTo(committed!.id)).toEqual([{ inviteeId: bob.id }]);
  }, 60_000);
});
