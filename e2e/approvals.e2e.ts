import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { attachDesktopAndPhone } from "./pages/screens";
import { withDatabase, setE2eApprovalPolicy } from "./pages/database";
import { SignInPage } from "./pages/sign-in-page";

// Approvals in the web chat (docs/approvals.md), against the production server and the offline
// demo model: by default every change waits on a card with Approve / Edit / Deny.

test.describe.configure({ mode: "serial" });
// These flows approve the assistant's changes: the user asks for every one (a new user's
// default, `others`, is tested in e2e/approvals.e2e.ts).
test.beforeAll(() => setE2eApprovalPolicy(e2eAdmin.email, "always"));

const pageProblems: string[] = [];
test.beforeEach(() => void pageProblems.splice(0));
test.afterEach(() => expect(pageProblems).toEqual([]));

async function signIn(page: Page): Promise<ChatPage> {
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /react|hydrat/i.test(msg.text())) pageProblems.push(`console: ${msg.text()}`);
  });
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const chat = new ChatPage(page);
  await chat.gotoNew();
  return chat;
}


const card = (chat: ChatPage) => chat.view().getByTestId("approval-card").last();

test("a change waits on its card; Approve, reached with the keyboard, lets it happen and the answer follows", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Remember that my favourite colour is green");
  await expect(card(chat)).toHaveAttribute("data-status", "pending");
  await expect(card(chat)).toContainText("Waiting for your approval");
  // It asks in a person's words: no action name, no JSON.
  await expect(card(chat)).toContainText("Remember your favourite colour: “green”?");
  await expect(card(chat)).not.toContainText("memory.update");
  await expect(card(chat)).not.toContainText("{");
  await chat.waitForIdle();
  const approve = card(chat).getByRole("button", { name: "Approve" });
  await approve.focus();
  await page.keyboard.press("Enter");
  await expect(chat.lastAssistant()).toHaveText("Got it. I'll remember that your favourite colour is green.");
  await expect(chat.cards().filter({ hasText: "favourite" }).last()).toBeVisible();
});

test("Deny with a reason: nothing is changed and the assistant says why", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Remember that I like tea");
  await chat.waitForIdle();
  await card(chat).getByRole("button", { name: "Deny" }).click();
  await card(chat).getByLabel(/Why not/).fill("not now");
  await card(chat).getByLabel(/Why not/).press("Enter");
  await expect(chat.lastAssistant()).toContainText("denied memory.update; it was not done");
  await expect(chat.lastAssistant()).toContainText("not now");
});

test("Edit: a wrong field is named, the corrected input is what happens", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Remember that my city is Paris");
  await chat.waitForIdle();
  await card(chat).getByRole("button", { name: "Edit" }).click();
  const input = card(chat).getByTestId("approval-input");
  await input.fill(JSON.stringify({ facts: [{ key: "Home City", value: "Lyon" }] }));
  await card(chat).getByRole("button", { name: "Approve with changes" }).click();
  await expect(card(chat).getByRole("alert")).toContainText("input.facts.0.key");
  await input.fill(JSON.stringify({ facts: [{ key: "home_city", value: "Lyon" }] }));
  await card(chat).getByRole("button", { name: "Approve with changes" }).click();
  await expect(chat.cards().filter({ hasText: "Lyon" }).last()).toBeVisible();
  await chat.waitForIdle();
  await chat.send("What do you remember about me?");
  await expect(chat.lastAssistant()).toContainText("Lyon");
});

test("a pending request is back after a reload and can be approved there; an expired one says so", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Remember that my dog is called Rex");
  await chat.waitForIdle();
  await page.reload();
  const waiting = chat.view().getByTestId("history-day").getByTestId("approval-card");
  await expect(waiting).toHaveAttribute("data-status", "pending");
  await waiting.getByRole("button", { name: "Approve" }).click();
  await expect(chat.assistantMessages().filter({ hasText: "Got it. I'll remember that your dog is called Rex." })).toBeVisible();

  await chat.send("Remember that my cat is called Tom");
  await chat.waitForIdle();
  const id = await card(chat).getAttribute("data-approval-id");
  await withDatabase((db) => db.query(`update approvals set expires_at = now() - interval '1 minute' where id = $1`, [id]));
  await page.reload();
  const expired = chat.view().getByTestId("history-day").getByTestId("approval-card").last();
  await expect(expired).toHaveAttribute("data-status", "expired");
  await expect(expired.getByTestId("approval-expired")).toBeVisible();
  await expect(expired.getByRole("button", { name: "Approve" })).toHaveCount(0);
});

test("the inbox lists requests waiting in two chats; deciding one there resumes its chat", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send("Remember that my tea is oolong");
  await chat.waitForIdle();
  const teaThread = chat.threadId();
  await chat.gotoNew();
  await chat.send("Remember that my bike is blue");
  await chat.waitForIdle();

  const inbox = page.getByTestId("approvals-inbox");
  await inbox.getByTestId("approvals-inbox-toggle").click();
  const tea = inbox.getByTestId("approvals-inbox-item").filter({ hasText: "Remember your tea: “oolong”?" });
  const bike = inbox.getByTestId("approvals-inbox-item").filter({ hasText: "Remember your bike: “blue”?" });
  await expect(tea).toBeVisible();
  await expect(bike).toBeVisible();
  expect(Number(await inbox.getByTestId("approvals-inbox-count").textContent())).toBeGreaterThanOrEqual(2);
  await expectNoSeriousAxeFindings(page, "approvals inbox");
  await attachDesktopAndPhone(page, "approvals-inbox");

  // Approved from the list, in the chat it came from: the run resumes there without it being open.
  await tea.getByRole("button", { name: "Approve" }).click();
  await expect(tea).toHaveCount(0);
  await bike.getByRole("button", { name: "Deny" }).click();
  await expect(bike).toHaveCount(0);
  await page.goto(`/chat/${teaThread}`);
  await expect(chat.assistantMessages().filter({ hasText: "Got it. I'll remember that your tea is oolong." })).toBeVisible();
});

test("a new user's default asks only when it matters: memory and a private event go ahead, an invitation asks", async ({ page }) => {
  const chat = await signIn(page);
  await page.goto("/chat/settings");
  const others = page.getByTestId("approval-policy-section").getByRole("radio", { name: "Ask for changes that involve other people" });
  await others.check();
  await page.reload();
  await expect(others).toBeChecked();
  try {
    await chat.gotoNew();
    await chat.send("Remember that my shoe size is 42");
    await expect(chat.lastAssistant()).toHaveText("Got it. I'll remember that your shoe size is 42.");
    await chat.waitForIdle();
    // (Not today at 23:00: e2e/chat-experience.e2e.ts looks for the one event there.)
    await chat.send("Schedule a meeting the day after tomorrow at 06:00 for 30 minutes");
    await expect(chat.lastAssistant()).toContainText("Done:");
    await chat.waitForIdle();
    await expect(chat.view().getByTestId("approval-card")).toHaveCount(0);
    // Inviting Ana reaches her: the card asks, in words.
    await chat.send("Schedule a call with Ana on Friday at 10 for 30 minutes");
    await expect(card(chat)).toHaveAttribute("data-status", "pending");
    await expect(card(chat)).toContainText(/Add “.+” to your calendar and invite .+@.+\?/);
    await card(chat).getByRole("button", { name: "Deny" }).click();
    await card(chat).getByLabel(/Why not/).press("Enter");
    await chat.waitForIdle();
  } finally {
    await setE2eApprovalPolicy(e2eAdmin.email, "always");
  }
});
