import AxeBuilder from "@axe-core/playwright";
import { setE2eApprovalPolicy } from "./pages/database";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { pngBytes } from "../test/images";
import { ChatPage } from "./pages/chat-page";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// What a newcomer meets in the chat: a composer that wraps anything, Markdown answers with
// copy, regenerate and edit, the demo's own suggestions working, two languages, settings, and
// no serious accessibility finding. Desktop and phone sizes; screenshots for review.

process.env.DEMO_MODEL_DELAY_MS ??= "40";
test.describe.configure({ mode: "serial" });
// These flows approve the assistant's changes: the user asks for every one (a new user's
// default, `others`, is tested in e2e/approvals.e2e.ts).
test.beforeAll(() => setE2eApprovalPolicy(e2eAdmin.email, "always"));

const SHOTS = "test-results/screenshots";
const DESKTOP = { width: 1280, height: 800 };
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

/** No horizontal scrolling: nothing on the page is wider than the window. */
async function expectNoSideways(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

async function expectNoSeriousAxeFindings(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious).toEqual([]);
}

/**
 * Chinese is drawn with real glyphs, not boxes: two different characters come out differently,
 * and unlike a character no font has (CI's image needs a CJK font for this, see .ci/run).
 */
async function expectCjkGlyphs(page: Page): Promise<void> {
  const drawn = await page.evaluate(() => {
    const family = getComputedStyle(document.body).fontFamily;
    const draw = (text: string) => {
      const canvas = document.createElement("canvas");
      canvas.width = 48;
      canvas.height = 48;
      const g = canvas.getContext("2d")!;
      g.font = `32px ${family}`;
      g.fillText(text, 4, 38);
      return canvas.toDataURL();
    };
    return { zhong: draw("中"), wen: draw("文"), missing: draw("\uE000") };
  });
  expect(drawn.zhong).not.toBe(drawn.wen);
  expect(drawn.zhong).not.toBe(drawn.missing);
}

for (const [name, size] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
  test(`a pasted long link wraps in the composer and never widens the page (${name})`, async ({ page }) => {
    await page.setViewportSize(size);
    const chat = await signIn(page);
    await chat.ready();
    const url = `https://example.com/${"very-long-path-segment/".repeat(60)}?q=${"x".repeat(400)}`;
    await chat.input().fill(url);
    await expectNoSideways(page);
    const box = await chat.input().boundingBox();
    expect(box!.width).toBeLessThanOrEqual(size.width);
    // Header and Send stay on screen: nothing was pushed off to the side.
    await expect(page.getByRole("banner")).toBeInViewport({ ratio: 1 });
    await expect(chat.sendButton()).toBeInViewport({ ratio: 1 });
    await chat.input().press("Enter");
    await expect(chat.userMessages().last()).toContainText("very-long-path-segment");
    await chat.waitForIdle();
    await expectNoSideways(page);
  });
}

test("answers render Markdown: a table and a highlighted code block, copied with one click", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.setViewportSize(DESKTOP);
  const chat = await signIn(page);
  // An event today is in this week's table whatever weekday the test runs on.
  await chat.send("Schedule a meeting today at 23:00 for 30 minutes");
  // Changes wait for the user's approval by default (e2e/approvals.e2e.ts); the approved
  // change is carried out by a run of its own, which the chat joins.
  await chat.view().getByTestId("approval-approve").click();
  await expect(chat.lastAssistant()).toContainText("Done:");
  await chat.waitForIdle();
  await chat.send("What's on my calendar this week?");
  await chat.waitForIdle();
  const table = chat.lastAssistant().locator("table");
  await expect(table).toBeVisible();
  await expect(table.locator("th")).toHaveText(["Day", "Time", "Event"]);
  await expect(table.locator("td").filter({ hasText: "23:00–23:30" })).toBeVisible();

  await chat.send("What can you do?");
  await chat.waitForIdle();
  const code = chat.lastAssistant().getByTestId("code-block");
  await expect(code).toHaveAttribute("data-lang", "bash");
  await expect(code).toHaveAttribute("data-highlighted", "true");
  await expect(code.locator("pre")).toContainText("LLM_BASE_URL=http://localhost:11434/v1");
  // Raw characters of the syntax never show.
  await expect(chat.lastAssistant()).not.toContainText("```");
  await code.getByTestId("copy").click();
  await expect(code.getByTestId("copy")).toContainText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("LLM_BASE_URL=http://localhost:11434/v1\nLLM_API_KEY=ollama\nLLM_MODEL=llama3.1");
  await chat.lastAssistant().getByTestId("copy").last().click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("```bash");
  await page.screenshot({ path: `${SHOTS}/chat-markdown.png`, fullPage: true });
});

test("regenerate answers the last question again and an edited question starts a new branch; the old ones stay a click away", async ({ page }) => {
  await page.setViewportSize(PHONE);
  const chat = await signIn(page);
  await chat.send("What's on my calendar tomorrow?");
  await chat.waitForIdle();
  await page.getByTestId("regenerate").click();
  await chat.waitForIdle();
  // The new answer replaces the old one on the thread's current branch: one question, and the
  // answer's switcher says it is the second version (docs/branches.md).
  const answerVersions = page.getByTestId("branch-switcher");
  await expect(answerVersions.getByTestId("branch-position")).toHaveText("2/2");
  await expect(chat.userMessages()).toHaveText(["What's on my calendar tomorrow?"]);
  await expect(answerVersions.getByLabel("Version 2 of 2")).toBeVisible();
  await answerVersions.getByRole("button", { name: "Previous version" }).click();
  await expect(page.getByTestId("branch-position")).toHaveText("1/2");
  await expect(page.getByRole("button", { name: "Next version" })).toBeEnabled();
  await expectNoSeriousAxeFindings(page);

  // After a reload Regenerate is offered from the history alone, and Edit forks at the question.
  await page.reload();
  await chat.ready();
  await chat.userMessages().first().getByTestId("edit").click();
  const edit = page.getByTestId("edit-input");
  await expect(edit).toHaveValue("What's on my calendar tomorrow?");
  await edit.fill("Find Ana's email");
  await page.getByTestId("edit-send").click();
  await chat.waitForIdle();
  await expect(chat.userMessages()).toHaveText(["Find Ana's email"]);
  await expect(chat.lastAssistant()).toContainText("Ana Souza");
  const questionVersions = page.getByTestId("branch-switcher").first();
  await expect(questionVersions.getByTestId("branch-position")).toHaveText("2/2");
  await expect(page.getByTestId("regenerate")).toBeVisible();

  // The first question and its answers are still there.
  await questionVersions.getByRole("button", { name: "Previous version" }).click();
  await expect(chat.userMessages()).toHaveText(["What's on my calendar tomorrow?"]);
  await expect(page.getByTestId("branch-switcher")).toHaveCount(2);
  await expectNoSideways(page);
  await attachDesktopAndPhone(page, "branches");
});

test("every suggestion of the empty chat works, and the demo says plainly what it cannot do", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  const chat = await signIn(page);
  const suggestions = await page.getByTestId("suggestion").allTextContents();
  expect(suggestions.length).toBeGreaterThanOrEqual(4);
  for (const [i, suggestion] of suggestions.entries()) {
    if (i > 0) await chat.gotoNew();
    await chat.ready();
    await page.getByTestId("suggestion").filter({ hasText: suggestion }).click();
    await chat.waitForIdle();
    // A suggestion that changes something waits for the user's approval (e2e/approvals.e2e.ts).
    if ((await chat.view().getByTestId("approval-approve").count()) > 0) {
      await chat.view().getByTestId("approval-approve").click();
      await expect(chat.lastAssistant()).toContainText("Done:");
      await chat.waitForIdle();
    }
    await expect(chat.liveTurns().last()).toHaveAttribute("data-status", "completed");
    // Not the help text: the demo understood it.
    await expect(chat.lastAssistant()).not.toContainText("only understand a few kinds of requests");
  }
  // The memory suggestion answers with a card, not raw JSON.
  await expect(chat.cards().filter({ hasText: "What I remember about you" })).toBeVisible();
  await expect(chat.view().getByText('{"')).toHaveCount(0);

  await chat.send("Book me a flight to Lisbon on Friday");
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toHaveText("I can't book flights: this offline demo only works with your calendar, contacts and memory.");

  await chat.ready();
  await page.getByTestId("attach-input").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(pngBytes(5)) });
  await expect(page.getByTestId("composer-attachment")).toHaveAttribute("data-status", "ready");
  await chat.sendButton().click();
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toContainText("I got your image");
});

test("zh-CN: the chat speaks the browser's language, and settings switch language and theme for chat and console", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN", viewport: DESKTOP });
  const page = await context.newPage();
  const chat = await signIn(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(chat.input()).toHaveAttribute("placeholder", "给 Dispatch 发消息…");
  await expect(page.getByTestId("new-chat")).toContainText("新对话");
  await chat.send("What's on my calendar tomorrow?");
  await chat.waitForIdle();
  await expect(chat.view().getByTestId("day-header").last()).toHaveText("今天");
  // A change waits on a card that speaks Chinese too; its Approve, reached with the keyboard, lets it happen.
  await chat.send("Schedule a call with Ana on Friday at 10 for 30 minutes");
  const card = chat.view().getByTestId("approval-card").last();
  await expect(card).toHaveAttribute("data-status", "pending");
  // The card and its choices, both named by the question, asked in a person's words: no action name.
  await expect(card.getByRole("group", { name: /^把“.+”加入你的日历.*？$/ })).toHaveCount(2);
  await expect(card).not.toContainText("calendar.create");
  // The card itself speaks Chinese, its expiry a 24-hour time like every other card's, not a raw timestamp.
  await expect(card.getByTestId("ui-node-badge")).toHaveText("等待你的批准");
  const expiry = card.getByTestId("ui-node-datetime").filter({ hasText: "到期时间" });
  await expect(expiry).toHaveText(/\d{2}:\d{2}/);
  // No instant on the card is the raw ISO text (the event's start included).
  await expect(card.getByTestId("ui-schema-card")).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}/);
  await expectCjkGlyphs(page);
  await expect(card.getByRole("button", { name: "修改" })).toBeVisible();
  await expect(card.getByRole("button", { name: "拒绝" })).toBeVisible();
  await chat.waitForIdle();
  await page.screenshot({ path: `${SHOTS}/chat-zh-CN.png`, fullPage: true });
  await expectNoSeriousAxeFindings(page);
  await card.getByRole("button", { name: "批准", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(chat.lastAssistant()).toContainText("Done:");
  await chat.waitForIdle();
  await expect(chat.cards().filter({ hasText: "日程已创建" })).toBeVisible();
  // After a reload, from history: the same words.
  await page.reload();
  await expect(chat.view().getByTestId("history-day").getByTestId("ui-schema-card").filter({ hasText: "日程已创建" })).toBeVisible();

  // The settings' approval policy and usage sections, in Chinese, with numbers and days in it.
  await page.goto("/chat/settings");
  const policy = page.getByTestId("approval-policy-section");
  await expect(policy.getByRole("heading", { name: "审批" })).toBeVisible();
  await expect(policy.getByRole("radio", { name: "始终询问" })).toBeChecked();
  await expect(policy.getByRole("radio", { name: "涉及他人的更改需询问" })).not.toBeChecked();
  await expect(policy.getByRole("radio", { name: "从不询问" })).not.toBeChecked();
  const usage = page.getByTestId("usage-section");
  await expect(usage.getByRole("heading", { name: "用量" })).toBeVisible();
  await expect(usage.getByTestId("usage-tokens-today")).toContainText("今日 Token 用量（UTC）");
  await expect(usage.getByTestId("usage-runs-now")).toContainText("进行中的运行");
  await expect(usage.getByRole("table", { name: "最近 14 天" }).getByRole("rowheader", { name: "今天" })).toBeVisible();
  await expectNoSeriousAxeFindings(page);

  await page.getByTestId("settings-language").selectOption("en");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await page.getByTestId("settings-theme").selectOption("dark");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.getByTestId("settings-time-zone").selectOption("Asia/Shanghai");
  await expect(page.getByTestId("settings-time-zone")).toHaveValue("Asia/Shanghai");
  await page.reload();
  await expect(page.getByTestId("settings-time-zone")).toHaveValue("Asia/Shanghai");
  await expect(page.getByTestId("settings-language")).toHaveValue("en");
  // Skills shown to the assistant (docs/skills.md): a hidden one stays hidden after a reload.
  const contacts = () => page.getByTestId("skills-section").getByRole("checkbox", { name: "Contacts" });
  await expect(contacts()).toBeChecked();
  await contacts().uncheck();
  await expect(page.getByTestId("skills-section").getByRole("status")).toHaveText("Saved. New messages use it.");
  await page.reload();
  await expect(contacts()).not.toBeChecked();
  await expect(page.getByTestId("skills-section").getByRole("checkbox", { name: "Calendar" })).toBeChecked();
  await contacts().check();
  await expect(page.getByTestId("skills-section").getByRole("status")).toBeVisible();
  await expectNoSeriousAxeFindings(page);
  await page.goto("/admin");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await context.close();
});

test("screenshots of the chat in light, dark and on a phone, with no serious accessibility finding", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  const chat = await signIn(page);
  await chat.send("Schedule a call with Ana on Friday at 10 for 30 minutes");
  // Approved, so the pictures show the change made (e2e/approvals.e2e.ts has the cards' other states).
  await chat.view().getByTestId("approval-approve").click();
  await expect(chat.lastAssistant()).toContainText("Done:");
  await chat.waitForIdle();
  await chat.send("What do you remember about me?");
  await chat.waitForIdle();
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  await page.screenshot({ path: `${SHOTS}/chat-light.png`, fullPage: true });
  await expectNoSeriousAxeFindings(page);
  await page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
  await page.screenshot({ path: `${SHOTS}/chat-dark.png`, fullPage: true });
  await expectNoSeriousAxeFindings(page);
  await page.setViewportSize(PHONE);
  await page.evaluate(() => delete document.documentElement.dataset.theme);
  await page.screenshot({ path: `${SHOTS}/chat-phone.png`, fullPage: true });
  await page.getByTestId("sidebar-toggle").click();
  await expect(page.getByTestId("drawer-admin")).toBeVisible();
  await expect(page.getByTestId("drawer-settings")).toBeVisible();
  await expectNoSeriousAxeFindings(page);
  await expectNoSideways(page);
});
