import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { pngBytes } from "../test/images";
import { ChatPage } from "./pages/chat-page";
import { withDatabase, setE2eApprovalPolicy } from "./pages/database";
import { SignInPage } from "./pages/sign-in-page";

// The web chat against the production server and the offline demo model.

// Slow enough tokens leave time to stop a run and to reload in the middle of one. Playwright
// loads this file before it starts the web server, which inherits this process's environment.
process.env.DEMO_MODEL_DELAY_MS ??= "40";

test.describe.configure({ mode: "serial" });
// These flows approve the assistant's changes: the user asks for every one (a new user's
// default, `others`, is tested in e2e/approvals.e2e.ts).
test.beforeAll(() => setE2eApprovalPolicy(e2eAdmin.email, "always"));

const LONG_PROMPT = "Tell me a long story about the sea";
const HELP_END = "Then restart Dispatch.";

// Uncaught exceptions and React's own errors (hydration, render) fail the test that caused them.
const pageProblems: string[] = [];
test.beforeEach(() => void pageProblems.splice(0));
test.afterEach(() => expect(pageProblems).toEqual([]));

/**
 * An answer's text without its whitespace: answers render as Markdown, and a line being
 * written ("- ") renders as an empty list item until its words arrive.
 */
function squash(text: string): string {
  return text.replace(/\s+/g, "");
}

function watch(page: Page): void {
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /react|hydrat/i.test(msg.text())) pageProblems.push(`console: ${msg.text()}`);
  });
}

async function signIn(page: Page, email = e2eAdmin.email, password = e2eAdmin.password): Promise<ChatPage> {
  watch(page);
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(email, password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  return new ChatPage(page);
}


test("a signed-in user chats with the offline model and sees the answer stream in", async ({ page }) => {
  const chat = await signIn(page);
  await expect(page.getByTestId("chat-empty")).toBeVisible();
  await expect(chat.modelBadge()).toContainText("Offline demo model");
  await expect(chat.modelBadge()).toHaveAttribute("data-offline", "true");

  await chat.send("Hello there");
  await expect(chat.userMessages().last()).toHaveText("Hello there");
  await expect(page.getByTestId("chat-title")).toHaveText("Hello there");
  await expect(chat.input()).toHaveValue("");
  await expect(chat.stopButton()).toBeVisible();
  await expect(chat.lastAssistant()).toHaveAttribute("data-streaming", "true");
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toHaveAttribute("data-streaming", "false");
  await expect(chat.lastAssistant()).not.toBeEmpty();
  await expect(chat.input()).toBeFocused();

  // The new chat is listed, titled by its first message, and the answer survives a reload.
  const threadId = chat.threadId();
  await expect(chat.threadItem(threadId)).toContainText("Hello there");
  const answer = await chat.lastAssistant().textContent();
  await page.reload();
  await expect(chat.view().getByTestId("history-day")).toBeVisible();
  await expect(chat.view().getByTestId("day-header").first()).toHaveText("Today");
  await expect(chat.lastAssistant()).toHaveText(answer ?? "");
  await expect(chat.modelBadge()).toBeVisible();
  await expect(chat.threadItem(threadId)).toBeVisible();
  await page.screenshot({ path: "test-results/chat-desktop.png", fullPage: true });
});

test("Shift+Enter adds a line and Enter sends", async ({ page }) => {
  const chat = await signIn(page);
  await chat.ready();
  await chat.input().fill("first line");
  await chat.input().press("Shift+Enter");
  await chat.input().pressSequentially("second line");
  await expect(chat.input()).toHaveValue("first line\nsecond line");
  await chat.input().press("Enter");
  await expect(chat.userMessages().last()).toHaveText("first line\nsecond line");
  await chat.waitForIdle();
});

test("calendar requests show tool calls while they run and calendar cards when done", async ({ page }) => {
  const chat = await signIn(page);
  // The call is "running" only while its arguments stream, shorter than a loaded machine's
  // polling: record every change of the page from before sending.
  await chat.ready();
  await page.evaluate(() => {
    const w = window as unknown as { sawRunning?: boolean };
    w.sawRunning = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="tool-call"][data-status="running"]')?.textContent?.includes("running…")) w.sawRunning = true;
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await chat.send("Schedule a call with Ana on Friday at 10 for 30 minutes");
  // Changes wait for the user's approval by default (e2e/approvals.e2e.ts).
  await chat.view().getByTestId("approval-approve").click();
  await chat.waitForIdle();
  expect(await page.evaluate(() => (window as unknown as { sawRunning?: boolean }).sawRunning)).toBe(true);
  await expect(chat.cards().filter({ hasText: "Event created" })).toBeVisible();
  await expect(chat.cards().filter({ hasText: "Event created" }).filter({ hasText: "Call with Ana" })).toBeVisible();

  await chat.send("What's on my calendar tomorrow?");
  await chat.waitForIdle();
  const calendar = chat.liveTurns().last().getByTestId("ui-schema-card");
  await expect(calendar).toHaveCount(1);
  await expect(calendar).toHaveAttribute("data-state", "valid");
  // Titled by the day it shows ("Thursday, Nov 26"), with no From/Until instants.
  await expect(calendar).toContainText(/day, [A-Z][a-z]{2} \d{1,2}/);
  await expect(calendar).not.toContainText("Until");
  await expect(chat.view().locator('[data-testid="tool-call"][data-status="running"]')).toHaveCount(0);
  // The approval card was the live view of a request; the thread keeps what came of it.
  const cardsLive = (await chat.cards().count()) - (await chat.view().getByTestId("approval-card").count());
  await page.screenshot({ path: "test-results/chat-calendar.png", fullPage: true });

  // The same cards are replayed from history after a reload.
  await page.reload();
  await expect(chat.view().getByTestId("history-day").getByTestId("ui-schema-card")).toHaveCount(cardsLive);
  await expect(chat.cards().filter({ hasText: "Event created" })).toBeVisible();
});

test("Stop cancels the run and the chat says so", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send(LONG_PROMPT);
  const partial = await chat.waitForStreamedText(20);
  await chat.stopButton().click();
  await expect(chat.view().getByTestId("run-cancelled")).toBeVisible();
  await expect(chat.liveTurns().last()).toHaveAttribute("data-status", "cancelled");
  await expect(chat.sendButton()).toBeVisible();
  const stopped = (await chat.lastAssistant().textContent()) ?? "";
  expect(squash(stopped).startsWith(squash(partial))).toBe(true);
  expect(stopped).not.toContain(HELP_END);

  // The server agrees: after a reload the answer is as far as it got, still marked as stopped,
  // and nothing is running.
  await page.reload();
  await expect(chat.lastAssistant()).toHaveText(stopped);
  await expect(chat.view().getByTestId("history-day").getByTestId("run-cancelled")).toHaveCount(1);
  await expect(chat.liveTurns()).toHaveCount(0);
  await expect(chat.sendButton()).toBeVisible();
});

test("reloading in the middle of a run rejoins the stream where it is", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send(LONG_PROMPT);
  const before = await chat.waitForStreamedText(20);
  await page.reload();

  // The rejoined run streams on: longer than before, and live (the Stop button is back).
  await expect(chat.stopButton()).toBeVisible();
  await expect(chat.liveTurns()).toHaveCount(1);
  const rejoined = chat.liveTurns().first().getByTestId("assistant-message");
  await expect.poll(async () => (await rejoined.textContent())?.length ?? 0, { timeout: 20_000 }).toBeGreaterThan(before.length);
  await chat.waitForIdle();
  await expect(rejoined).toContainText(HELP_END);
  expect(squash((await rejoined.textContent()) ?? "").startsWith(squash(before))).toBe(true);
  // The question is shown once (from history), the answer once (from the replay).
  await expect(chat.userMessages()).toHaveCount(1);
  await expect(chat.assistantMessages()).toHaveCount(1);
});

test("a message the server refuses is shown with its error, and Retry sends it again", async ({ page, context }) => {
  const chat = await signIn(page);
  await chat.send("Hello there");
  await chat.waitForIdle();
  const other = new ChatPage(await context.newPage());
  watch(other.page);
  await other.page.goto(`/chat/${chat.threadId()}`);
  await expect(other.userMessages()).toHaveText(["Hello there"]);

  // The thread is busy with the first tab's run: the server answers 409, shown in place.
  await chat.send(LONG_PROMPT);
  await chat.waitForStreamedText(10);
  await other.send("Are you still there?");
  const error = other.view().getByTestId("run-error");
  await expect(error).toContainText("An answer is still being written in this chat. Wait for it to finish or press Stop, then send again.");
  await expect(error).not.toContainText(chat.threadId());
  await expect(other.liveTurns().last()).toHaveAttribute("data-status", "failed");
  await expect(other.sendButton()).toBeVisible();

  // Once the first tab's answer has ended (Stop has tests of its own), the thread is free again.
  await chat.waitForIdle();
  await other.view().getByTestId("retry").click();
  await other.waitForIdle();
  await expect(error).toHaveCount(0);
  await expect(other.liveTurns()).toHaveCount(1);
  await expect(other.liveTurns().last()).toHaveAttribute("data-status", "completed");
  await expect(other.liveTurns().last().getByTestId("assistant-message")).not.toBeEmpty();
  await other.page.close();
});

test("an attached image is uploaded with progress, sent, and shown again after a reload", async ({ page }) => {
  const chat = await signIn(page);
  await chat.ready();
  await page.getByTestId("attach-input").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(pngBytes(7)) });
  const attachment = page.getByTestId("composer-attachment");
  await expect(attachment).toHaveAttribute("data-status", "ready");
  await expect(attachment.getByRole("img", { name: "Preview of dot.png" })).toBeVisible();

  // Removing it before sending takes it out of the message.
  await page.getByRole("button", { name: "Remove image dot.png" }).click();
  await expect(attachment).toHaveCount(0);
  await page.getByTestId("attach-input").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(pngBytes(9)) });
  await expect(attachment).toHaveAttribute("data-status", "ready");

  await chat.send("What is in this picture?");
  await expect(attachment).toHaveCount(0);
  const sent = chat.userMessages().last().getByTestId("user-message-image");
  await expect(sent).toHaveCount(1);
  await chat.waitForIdle();

  await page.reload();
  const replayed = chat.view().getByTestId("history-day").getByTestId("user-message-image");
  await expect(replayed).toHaveCount(1);
  await expect.poll(() => replayed.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(chat.userMessages().last()).toContainText("What is in this picture?");
  await page.screenshot({ path: "test-results/chat-image.png" });

  // Only images and documents are accepted.
  await page.getByTestId("attach-input").setInputFiles({ name: "tools.zip", mimeType: "application/zip", buffer: Buffer.from("PK\u0003\u0004") });
  await expect(page.getByText("Only images and PDF, text, Markdown, CSV or JSON files can be attached.")).toBeVisible();
  await expect(attachment).toHaveCount(0);
});

test("older days load on demand, with a header per day", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Hello from the past");
  await chat.waitForIdle();
  const threadId = chat.threadId();
  const day = await withDatabase(async (db) => {
    const { rows } = await db.query<{ day: string }>(
      `update messages set created_at = created_at - interval '3 days' where thread_id = $1
       returning to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day`,
      [threadId],
    );
    return rows[0]!.day;
  });
  await chat.send("Hello from today");
  await chat.waitForIdle();

  await page.reload();
  await expect(chat.userMessages()).toHaveCount(1);
  await expect(chat.userMessages()).toHaveText(["Hello from today"]);
  await chat.ready();
  await page.getByTestId("load-older").click();
  await expect(chat.userMessages()).toHaveText(["Hello from the past", "Hello from today"]);
  const older = chat.view().locator(`[data-testid="day-header"][data-day="${day}"]`);
  await expect(older).toBeVisible();
  await expect(older).toBeFocused();
  await expect(page.getByTestId("history-start")).toBeVisible();
  await expect(page.getByTestId("load-older")).toHaveCount(0);
});

test("chats are listed, renamed and deleted from the sidebar", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Plan the offsite");
  await chat.waitForIdle();
  const first = chat.threadId();

  await page.getByTestId("new-chat").click();
  await expect(page).not.toHaveURL(new RegExp(first));
  await expect(page.getByTestId("chat-empty")).toBeVisible();
  await expect(chat.input()).toBeFocused();
  await page.screenshot({ path: "test-results/chat-empty.png" });
  await chat.send("Budget questions");
  await chat.waitForIdle();
  const second = chat.threadId();

  // Newest activity first.
  const items = chat.sidebar().getByTestId("thread-item");
  await expect(items.first()).toHaveAttribute("data-thread-id", second);
  await expect(chat.threadItem(first)).toBeVisible();

  await chat.threadItem(first).getByRole("button", { name: "Rename chat Plan the offsite" }).click();
  const title = page.getByLabel("Chat title");
  await expect(title).toBeFocused();
  await title.fill("Offsite 2026");
  await title.press("Enter");
  await expect(chat.threadItem(first)).toContainText("Offsite 2026");
  await chat.threadItem(first).getByTestId("thread-link").click();
  await expect(page).toHaveURL(new RegExp(`/chat/${first}$`));
  await expect(page.getByTestId("chat-title")).toHaveText("Offsite 2026");
  await expect(chat.userMessages()).toHaveText(["Plan the offsite"]);

  // Deleting the open chat leaves it for a new one; its URL is gone for good.
  await chat.threadItem(first).getByRole("button", { name: "Delete chat Offsite 2026" }).click();
  await chat.threadItem(first).getByRole("button", { name: "Delete", exact: true }).click();
  await expect(chat.threadItem(first)).toHaveCount(0);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  expect(chat.threadId()).not.toBe(first);
  await page.goto(`/chat/${first}`);
  await expect(page.getByTestId("chat-empty")).toBeVisible();
  await expect(chat.threadItem(second)).toBeVisible();
});

test("someone else's chat is not found", async ({ page, browser }) => {
  const chat = await signIn(page);
  await chat.send("Admin-only notes");
  await chat.waitForIdle();
  const threadId = chat.threadId();
  const create = await page.request.post("/api/trpc/users.create", {
    data: { json: { email: "chat-member@e2e.dispatch", password: "member-password", role: "user" } },
  });
  expect(create.status()).toBe(200);

  const other = await browser.newPage();
  const otherChat = await signIn(other, "chat-member@e2e.dispatch", "member-password");
  await other.goto(`/chat/${threadId}`);
  await expect(other.getByTestId("thread-not-found")).toBeVisible();
  await expect(otherChat.sidebar().getByTestId("thread-item")).toHaveCount(0);
  await other.close();
});

test("the chat fits a phone: the sidebar is a drawer, and the theme can be switched", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const chat = await signIn(page);
  await chat.send("What's on my calendar tomorrow?");
  await chat.waitForIdle();
  await expect(chat.sidebar()).toBeHidden();
  await page.screenshot({ path: "test-results/chat-phone.png" });

  const toggle = page.getByTestId("sidebar-toggle");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(chat.sidebar()).toBeVisible();
  await expect.poll(async () => (await chat.sidebar().boundingBox())?.x).toBe(0);
  await expect(page.getByTestId("new-chat")).toBeFocused();
  await page.screenshot({ path: "test-results/chat-phone-sidebar.png" });
  await page.keyboard.press("Escape");
  await expect(chat.sidebar()).toBeHidden();
  await expect(toggle).toBeFocused();

  // System → Light → Dark, remembered across a reload.
  const theme = page.getByTestId("theme-toggle");
  await expect(theme).toHaveAttribute("data-theme-choice", "system");
  await theme.click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await theme.click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(theme).toHaveAttribute("data-theme-choice", "dark");
  await expect(chat.modelBadge()).toBeVisible();
  await page.screenshot({ path: "test-results/chat-phone-dark.png" });
  await theme.click();
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /.+/);
});
