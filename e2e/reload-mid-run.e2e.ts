import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin, FAKE_REASONER } from "../playwright.config";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

// Issue #40: a reload mid-run shows the state and the reasoning exactly as before the reload. A
// reasoning model (the tests' fake one, e2e/fake-llm-server.mjs) thinks, moves the thread's plan on
// with update_state, then streams a long second call; the page is reloaded while it streams, rejoins the
// run from its log, and shows the same plan, the same thought and the same "Thought for" line. The
// offline demo model (the default model here) keeps a plan in state too.

test.describe.configure({ mode: "serial" });

const THOUGHT = "First the slot then the booking.";

async function signIn(page: Page): Promise<ChatPage> {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  return new ChatPage(page);
}

/** Gives the thread a plan to start from, through the AG-UI door (a client's state replaces the kept one). */
async function startPlan(page: Page, threadId: string): Promise<void> {
  const steps = [
    { description: "Find a slot", status: "pending" },
    { description: "Book it", status: "pending" },
  ];
  const res = await page.request.post("/api/v1/ag-ui", {
    headers: { accept: "text/event-stream" },
    data: { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "Plan my booking" }], tools: [], context: [], state: { plan: { steps } }, forwardedProps: {} },
  });
  expect(res.status()).toBe(200);
  expect(await res.text()).toContain("RUN_FINISHED");
}

const planSteps = (page: Page) => page.getByTestId("state-panel").getByTestId("state-plan-step");

test("a reload mid-run shows the plan and the thought exactly as before", async ({ page }) => {
  const chat = await signIn(page);
  await chat.gotoNew();
  const threadId = chat.threadId();
  await chat.ready();
  await startPlan(page, threadId);
  await page.reload();
  await chat.ready();
  await page.getByTestId("model-picker").locator("select").selectOption(FAKE_REASONER);
  await page.getByTestId("state-panel-toggle").click();
  await expect(planSteps(page)).toHaveText(["Find a slot (to do)", "Book it (to do)"]);

  // The second call's long note streams its arguments for a few seconds: the reload lands in it.
  const slot = [{ op: "replace", path: "/plan/steps/0/status", value: "done" }];
  const note = [{ op: "add", path: "/note", value: "the room by the window ".repeat(20).trim() }];
  const call = (operations: unknown[]) => `[[call:update_state ${JSON.stringify({ operations })}]]`;
  await chat.send(`[[delay:200]] [[think:${THOUGHT}]] ${call(slot)} ${call(note)} book it`);

  // Mid-run: the thought is done, the plan moved on, the run goes on.
  await expect(planSteps(page)).toHaveText(["Find a slot (done)", "Book it (to do)"]);
  const turn = chat.liveTurns().first();
  await expect(turn.getByTestId("reasoning-label")).toHaveText(/^Thought for /);
  await expect(chat.stopButton()).toBeVisible();
  const label = await turn.getByTestId("reasoning-label").textContent();
  const steps = await planSteps(page).allTextContents();

  await page.reload();
  await chat.ready();
  const rejoined = chat.liveTurns().first();
  // Still the same run: the page rejoined it before its end, and shows what it showed before.
  await expect(chat.stopButton()).toBeVisible();
  await expect(rejoined.getByTestId("reasoning-label")).toHaveText(label!);
  if (!(await page.getByTestId("state-panel").isVisible())) await page.getByTestId("state-panel-toggle").click();
  await expect(planSteps(page)).toHaveText(steps);
  await rejoined.getByTestId("reasoning-label").click();
  await expect(rejoined.getByTestId("reasoning").locator(".chat-reasoning-text")).toHaveText(THOUGHT);

  await chat.waitForIdle();
  await expect(planSteps(page)).toHaveText(steps);
  await expect(page.getByTestId("state-tree")).toContainText("the room by the window");
  await expect(rejoined.getByTestId("reasoning-label")).toHaveText(label!);
});

test("the offline demo model keeps a plan in state when the page starts an empty one", async ({ page }) => {
  const chat = await signIn(page);
  await chat.gotoNew();
  const threadId = chat.threadId();
  await chat.ready();
  // The default model here is the offline demo model.
  const res = await page.request.post("/api/v1/ag-ui", {
    headers: { accept: "text/event-stream" },
    data: { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "What's on my calendar tomorrow?" }], tools: [], context: [], state: { plan: { steps: [] } }, forwardedProps: {} },
  });
  expect(res.status()).toBe(200);
  const events = (await res.text())
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: unknown });
  expect(events.filter((e) => e.type === "STATE_DELTA").map((e) => e.delta)).toEqual([
    [{ op: "add", path: "/plan/steps", value: [{ description: "Read your calendar", status: "in_progress" }, { description: "Answer you", status: "pending" }] }],
    [
      { op: "replace", path: "/plan/steps/0/status", value: "done" },
      { op: "replace", path: "/plan/steps/1/status", value: "done" },
    ],
  ]);
  expect(events.at(-1)?.type).toBe("RUN_FINISHED");

  // The chat shows the plan the thread keeps.
  await page.reload();
  await chat.ready();
  await expect(page.getByTestId("state-panel-toggle")).toContainText("Plan · 2 of 2 done");
});
