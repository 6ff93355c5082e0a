import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { setE2eApprovalPolicy } from "./pages/database";
import { SignInPage } from "./pages/sign-in-page";

// Faces for issue #44: the thread's plan and state beside the chat (live, after a reload, zh-CN,
// phone sheet), "a request is waiting: send anyway?", and the console's list of requests waiting
// across users. Against the production server and the offline demo model; axe clean.

test.describe.configure({ mode: "serial" });
test.beforeAll(() => setE2eApprovalPolicy(e2eAdmin.email, "always"));

const SHOTS = "test-results/screenshots";
const PHONE = { width: 390, height: 844 };

const problems: string[] = [];
test.beforeEach(() => void problems.splice(0));
test.afterEach(() => expect(problems).toEqual([]));

async function signIn(page: Page): Promise<ChatPage> {
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /react|hydrat/i.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  return new ChatPage(page);
}

async function shot(page: Page, name: string): Promise<void> {
  const path = `${SHOTS}/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  await test.info().attach(name, { path, contentType: "image/png" });
}

type Step = { description: string; status: "pending" | "in_progress" | "done" };
const steps = (...statuses: Step["status"][]): Step[] =>
  ["Find a free slot", "Invite Ana", "Book a room"].map((description, i) => ({ description, status: statuses[i]! }));
const tripState = (plan: Step[]) => ({ plan: { steps: plan }, trip: { city: "Lisbon", nights: 3, confirmed: false, travellers: ["Ana", "Ben"] } });

/** A run through the AG-UI door that sets the thread's state (a client's state replaces the kept one). */
async function setStateThroughAgUi(page: Page, threadId: string, state: Record<string, unknown>): Promise<void> {
  const res = await page.request.post("/api/v1/ag-ui", {
    headers: { accept: "text/event-stream" },
    data: { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "What's on my calendar tomorrow?" }], tools: [], context: [], state, forwardedProps: {} },
  });
  expect(res.status()).toBe(200);
  expect(await res.text()).toContain("RUN_FINISHED");
}

const panel = (page: Page) => page.getByTestId("state-panel");
const toggle = (page: Page) => page.getByTestId("state-panel-toggle");

test("the plan and state: steps with progress, a readable tree, live as runs stream, after a reload", async ({ page }) => {
  const chat = await signIn(page);
  await chat.gotoNew();
  const threadId = chat.threadId();
  // A thread without state has no panel.
  await chat.ready();
  await expect(toggle(page)).toHaveCount(0);

  await setStateThroughAgUi(page, threadId, tripState(steps("done", "in_progress", "pending")));
  await page.reload();
  await chat.ready();
  await expect(toggle(page)).toContainText("Plan · 1 of 3 done");
  await expect(toggle(page)).toHaveAttribute("aria-expanded", "false");
  // Keyboard: the toggle opens the panel, Escape in it closes it and gives focus back.
  await toggle(page).focus();
  await page.keyboard.press("Enter");
  await expect(panel(page)).toBeVisible();
  await expect(panel(page).getByTestId("state-plan-progress")).toHaveText("1 of 3 done");
  await expect(panel(page).getByTestId("state-plan-step")).toHaveText(["Find a free slot (done)", "Invite Ana (in progress)", "Book a room (to do)"]);
  await expect(panel(page).getByTestId("state-plan-step").nth(1)).toHaveAttribute("data-status", "in_progress");
  const tree = panel(page).getByTestId("state-tree");
  await expect(tree).toContainText("Trip");
  await expect(tree.locator("dt")).toContainText(["Trip", "City", "Nights", "Confirmed", "Travellers"]);
  await expect(tree.locator("dd").filter({ hasText: /^Lisbon$/ })).toBeVisible();
  await expect(tree.locator("dd").filter({ hasText: /^No$/ })).toBeVisible();
  await expect(panel(page)).not.toContainText("{");
  await expect(panel(page)).not.toContainText("in_progress");
  await expectNoSeriousAxeFindings(page, "state panel");
  await shot(page, "state-panel-desktop");
  await panel(page).getByTestId("state-panel-close").focus();
  await page.keyboard.press("Escape");
  await expect(panel(page)).toHaveCount(0);
  await expect(toggle(page)).toBeFocused();

  // Another client moves the plan on; the chat's next run starts from it (its STATE_SNAPSHOT).
  await toggle(page).click();
  await setStateThroughAgUi(page, threadId, tripState(steps("done", "done", "in_progress")));
  await chat.send("What's on my calendar this week?");
  await expect(panel(page).getByTestId("state-plan-progress")).toHaveText("2 of 3 done");
  await chat.waitForIdle();

  // The agent's STATE_DELTA patches the chat's copy as it streams (the demo model never writes
  // state, so this run's stream is played by the test, as the server sends one).
  const run = `run_${randomUUID()}`;
  const events = [
    { type: "RUN_STARTED", threadId, runId: run },
    { type: "STATE_SNAPSHOT", snapshot: tripState(steps("done", "done", "in_progress")) },
    { type: "TOOL_CALL_START", toolCallId: "call_1", toolCallName: "update_state" },
    { type: "TOOL_CALL_END", toolCallId: "call_1" },
    { type: "STATE_DELTA", delta: [{ op: "replace", path: "/plan/steps/2/status", value: "done" }, { op: "replace", path: "/trip/confirmed", value: true }] },
    { type: "TOOL_CALL_RESULT", messageId: "m_tool", toolCallId: "call_1", content: '{"status":"success","applied":2}' },
    { type: "TEXT_MESSAGE_START", messageId: "m_1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m_1", delta: "All booked." },
    { type: "TEXT_MESSAGE_END", messageId: "m_1" },
    { type: "RUN_FINISHED", threadId, runId: run },
  ];
  await page.route("**/api/v1/agent/runs", (route) =>
    route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") }),
  );
  await chat.send("Book the room");
  await expect(panel(page).getByTestId("state-plan-progress")).toHaveText("3 of 3 done");
  await expect(panel(page).getByTestId("state-tree").locator("dd").filter({ hasText: /^Yes$/ })).toBeVisible();
  await expect(toggle(page)).toContainText("3 of 3 done");
  await page.unroute("**/api/v1/agent/runs");

  // After a reload: what the thread keeps (the played run never reached the server).
  await page.reload();
  await chat.ready();
  await expect(toggle(page)).toContainText("Plan · 2 of 3 done");
});

test("zh-CN on a phone: the plan is a sheet that speaks Chinese, Escape closes it", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN", viewport: PHONE });
  const page = await context.newPage();
  const chat = await signIn(page);
  await chat.gotoNew();
  await setStateThroughAgUi(page, chat.threadId(), tripState(steps("done", "in_progress", "pending")));
  await page.reload();
  await chat.ready();
  await expect(toggle(page)).toContainText("计划 · 已完成 1/3");
  await toggle(page).click();
  await expect(panel(page)).toBeVisible();
  await expect(panel(page).getByRole("heading", { name: "计划与状态" })).toBeFocused();
  await expect(panel(page).getByTestId("state-plan-step").nth(1)).toContainText("(进行中)");
  await expect(panel(page).getByTestId("state-tree").locator("dd").filter({ hasText: /^否$/ })).toBeVisible();
  // A sheet from the bottom, over the chat.
  const box = await panel(page).boundingBox();
  expect(box && Math.round(box.y + box.height)).toBe(PHONE.height);
  expect(box && Math.round(box.width)).toBe(PHONE.width);
  await expectNoSeriousAxeFindings(page, "zh-CN phone state sheet");
  await shot(page, "state-panel-phone-zh-CN");
  await page.keyboard.press("Escape");
  await expect(panel(page)).toHaveCount(0);
  await expect(toggle(page)).toBeFocused();
  await context.close();
});

const card = (chat: ChatPage) => chat.view().getByTestId("approval-card").last();
const dialog = (page: Page) => page.getByTestId("send-anyway-dialog");

/** Asks for a change that waits for approval (the chat knows at once; the inbox reads it later). */
async function leaveWaiting(chat: ChatPage, text: string): Promise<void> {
  await chat.send(text);
  await expect(card(chat)).toHaveAttribute("data-status", "pending");
  await chat.waitForIdle();
}

test("sending while a request waits asks first: cancel keeps the text, deciding there resumes, send anyway supersedes", async ({ page }) => {
  const chat = await signIn(page);
  await chat.gotoNew();
  await leaveWaiting(chat, "Remember that my hat is red");

  await chat.send("What do you remember about me?");
  await expect(dialog(page)).toBeVisible();
  await expect(dialog(page).getByRole("heading", { name: "A request is waiting" })).toBeVisible();
  await expect(dialog(page).getByTestId("send-anyway-question")).toHaveText("Remember your hat: “red”?");
  await expect(dialog(page).getByTestId("send-anyway-cancel")).toBeFocused();
  await expectNoSeriousAxeFindings(page, "send anyway dialog");
  await shot(page, "send-anyway-desktop");
  // Escape (like Cancel) sends nothing; the text stays in the box.
  await page.keyboard.press("Escape");
  await expect(dialog(page)).toHaveCount(0);
  await expect(chat.input()).toHaveValue("What do you remember about me?");
  await expect(chat.userMessages()).toHaveCount(1);

  // Approved from the dialog: its run resumes here, the message still waits in the box.
  await chat.input().press("Enter");
  await dialog(page).getByTestId("send-anyway-approve").click();
  await expect(dialog(page)).toHaveCount(0);
  await expect(chat.assistantMessages().filter({ hasText: "Got it. I'll remember that your hat is red." })).toBeVisible();
  await chat.waitForIdle();
  await expect(chat.input()).toHaveValue("What do you remember about me?");
  await chat.input().press("Enter");
  await expect(dialog(page)).toHaveCount(0);
  await expect(chat.lastAssistant()).toContainText("red");
  await chat.waitForIdle();

  // Send anyway: the message goes, the request is not done.
  await leaveWaiting(chat, "Remember that my scarf is blue");
  await chat.send("Hello");
  await dialog(page).getByTestId("send-anyway-send").click();
  await expect(dialog(page)).toHaveCount(0);
  await expect(chat.userMessages().last()).toHaveText("Hello");
  await chat.waitForIdle();
  // Superseded, it waits no more (and sending again does not ask).
  await page.reload();
  await expect(chat.userMessages().last()).toHaveText("Hello");
  await expect(chat.view().locator('[data-testid="approval-card"][data-status="pending"]')).toHaveCount(0);
  await chat.send("Hello again");
  await expect(chat.userMessages().last()).toHaveText("Hello again");
  await expect(dialog(page)).toHaveCount(0);
});

test("zh-CN on a phone: the send-anyway question speaks Chinese", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN", viewport: PHONE });
  const page = await context.newPage();
  const chat = await signIn(page);
  await chat.gotoNew();
  await chat.send("Remember that my umbrella is yellow");
  await expect(card(chat)).toHaveAttribute("data-status", "pending");
  await chat.waitForIdle();
  await chat.send("Hello");
  await expect(dialog(page).getByRole("heading", { name: "有一个请求在等待你" })).toBeVisible();
  await expect(dialog(page).getByTestId("send-anyway-send")).toHaveText("仍然发送");
  await expectNoSeriousAxeFindings(page, "zh-CN phone send anyway dialog");
  await shot(page, "send-anyway-phone-zh-CN");
  await dialog(page).getByTestId("send-anyway-deny").click();
  await expect(dialog(page)).toHaveCount(0);
  await chat.waitForIdle();
  await context.close();
});

test("the console lists requests waiting across users, read-only, with a link to the run", async ({ page }) => {
  const chat = await signIn(page);
  await chat.gotoNew();
  await leaveWaiting(chat, "Remember that my coat is grey");
  await page.goto("/admin/approvals");
  await expect(page.getByRole("heading", { name: "Waiting", level: 1 })).toBeVisible();
  await expect(page.getByTestId("admin-waiting-approvals")).toContainText("this list is read-only");
  const row = page.getByTestId("admin-waiting-approval").filter({ hasText: "Remember your coat: “grey”?" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(e2eAdmin.email);
  await expect(row.getByRole("button")).toHaveCount(0);
  await expect(page.getByTestId("admin-nav").getByRole("link", { name: "Waiting" })).toHaveAttribute("aria-current", "page");
  await expectNoSeriousAxeFindings(page, "console waiting approvals");
  await shot(page, "console-waiting-desktop");
  await row.getByTestId("admin-waiting-run").click();
  await expect(page).toHaveURL(/\/admin\/runs\/[0-9a-f-]{36}$/);

  await page.setViewportSize(PHONE);
  await page.goto("/admin/approvals");
  await expect(page.getByTestId("admin-waiting-approval").first()).toBeVisible();
  await expectNoSeriousAxeFindings(page, "console waiting approvals on a phone");
  await shot(page, "console-waiting-phone");
});
