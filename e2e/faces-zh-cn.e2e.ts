import { randomUUID } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { pdfBytes } from "../test/documents";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { setE2eApprovalPolicy } from "./pages/database";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// Issue #44's faces in Simplified Chinese, where the English specs do not already cover them
// (approvals.e2e.ts, chat-experience.e2e.ts, files.e2e.ts, schedules.e2e.ts): the default policy
// and an approval sentence, the inbox, the branch switcher, a file chip and the schedules in
// settings. The demo model reads English only; the page, cards and questions speak Chinese.
// Each screen: axe clean, screenshots at desktop and phone sizes in the report.

test.describe.configure({ mode: "serial" });

const contexts: { close(): Promise<void> }[] = [];
test.afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

async function signInZh(browser: Browser): Promise<{ page: Page; chat: ChatPage }> {
  const context = await browser.newContext({ locale: "zh-CN" });
  contexts.push(context);
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const chat = new ChatPage(page);
  await chat.gotoNew();
  return { page, chat };
}

const pendingCard = (chat: ChatPage) => chat.view().getByTestId("approval-card").last();

test("zh-CN: memory and a private event go ahead; an invitation asks in a Chinese sentence, no JSON", async ({ browser }) => {
  await setE2eApprovalPolicy(e2eAdmin.email, "others");
  try {
    const { page, chat } = await signInZh(browser);
    await chat.send("Remember that my hat size is 58");
    await chat.waitForIdle();
    await expect(chat.lastAssistant()).toContainText("58");
    // (Not today at 23:00: e2e/chat-experience.e2e.ts looks for the one event there.)
    await chat.send("Schedule a meeting the day after tomorrow at 05:30 for 30 minutes");
    await chat.waitForIdle();
    await expect(chat.view().getByTestId("approval-card")).toHaveCount(0);

    await chat.send("Schedule a call with Ana on Friday at 10 for 30 minutes");
    await expect(pendingCard(chat)).toHaveAttribute("data-status", "pending");
    await expect(pendingCard(chat)).toContainText(/把.+加入你的日历并邀请 .+@.+？/);
    await expect(pendingCard(chat)).not.toContainText("calendar.create");
    await expect(pendingCard(chat)).not.toContainText("{");
    await expect(pendingCard(chat).getByRole("button", { name: "批准" })).toBeVisible();
    await expectNoSeriousAxeFindings(page, "zh-CN approval card");
    await attachDesktopAndPhone(page, "approval-card-zh-CN");
    await pendingCard(chat).getByRole("button", { name: "拒绝" }).click();
    await pendingCard(chat).getByLabel(/拒绝原因/).press("Enter");
    await chat.waitForIdle();
  } finally {
    await setE2eApprovalPolicy(e2eAdmin.email, "always");
  }
});

test("zh-CN: the inbox lists requests from two chats, and deciding one there resumes its chat", async ({ browser }) => {
  await setE2eApprovalPolicy(e2eAdmin.email, "always");
  const { page, chat } = await signInZh(browser);
  await chat.send("Remember that my kite is red");
  await chat.waitForIdle();
  const kiteThread = chat.threadId();
  await chat.gotoNew();
  await chat.send("Remember that my boat is green");
  await chat.waitForIdle();

  const inbox = page.getByTestId("approvals-inbox");
  await expect(inbox.getByTestId("approvals-inbox-toggle")).toContainText("等待你处理");
  await inbox.getByTestId("approvals-inbox-toggle").click();
  const kite = inbox.getByTestId("approvals-inbox-item").filter({ hasText: "记住" }).filter({ hasText: "“red”" });
  const boat = inbox.getByTestId("approvals-inbox-item").filter({ hasText: "记住" }).filter({ hasText: "“green”" });
  await expect(kite).toBeVisible();
  await expect(boat).toBeVisible();
  await expectNoSeriousAxeFindings(page, "zh-CN approvals inbox");
  await attachDesktopAndPhone(page, "approvals-inbox-zh-CN");

  await kite.getByRole("button", { name: "批准" }).click();
  await expect(kite).toHaveCount(0);
  await boat.getByRole("button", { name: "拒绝" }).click();
  await expect(boat).toHaveCount(0);
  await page.goto(`/chat/${kiteThread}`);
  await expect(chat.assistantMessages().filter({ hasText: "kite is red" })).toBeVisible();
});

test("zh-CN: the branch switcher and a file chip speak Chinese", async ({ browser }) => {
  const { page, chat } = await signInZh(browser);
  const pdf = Buffer.from(pdfBytes("Quarterly revenue rose"));
  await page.getByTestId("attach-input").setInputFiles({ name: "季度报告.pdf", mimeType: "application/pdf", buffer: pdf });
  const attachment = page.getByTestId("composer-attachment");
  await expect(attachment).toHaveAttribute("data-status", "ready");
  await expect(page.getByRole("button", { name: "移除文件 季度报告.pdf" })).toBeVisible();
  await chat.send("What's on my calendar tomorrow?");
  await chat.waitForIdle();
  await expect(chat.userMessages().last().getByTestId("file-chip")).toContainText("季度报告.pdf");

  await page.getByRole("button", { name: "重新生成回答" }).click();
  await chat.waitForIdle();
  const versions = page.getByTestId("branch-switcher");
  await expect(versions.getByTestId("branch-position")).toHaveText("2/2");
  await expect(versions.getByLabel("第 2 个版本，共 2 个")).toBeVisible();
  await expect(versions.getByRole("button", { name: "上一个版本" })).toBeEnabled();
  await expectNoSeriousAxeFindings(page, "zh-CN branches and file chip");
  await attachDesktopAndPhone(page, "branches-and-file-zh-CN");
});

test("zh-CN: the schedules in settings speak Chinese", async ({ browser }) => {
  const { page } = await signInZh(browser);
  const name = `每周总结 ${randomUUID().slice(0, 6)}`;
  const made = await page.request.post("/api/v1/schedules", {
    data: { name, message: "summarize my week", cron: "0 9 * * 1", timeZone: "Asia/Shanghai" },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(made.status()).toBe(201);
  await page.goto("/chat/settings");
  const section = page.getByTestId("schedules-section");
  await expect(section.getByRole("heading", { name: "定时任务" })).toBeVisible();
  const item = section.getByTestId("schedule").filter({ hasText: name });
  await expect(item.getByRole("status")).toContainText("下次：");
  await item.getByRole("button", { name: "暂停" }).click();
  await expect(item.getByRole("status")).toHaveText("已暂停");
  await expectNoSeriousAxeFindings(page, "zh-CN settings schedules");
  await attachDesktopAndPhone(page, "settings-schedules-zh-CN");
  await item.getByRole("button", { name: `删除定时任务“${name}”` }).click();
  await expect(item).toHaveCount(0);
});
