import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { setE2eApprovalPolicy } from "./pages/database";
import { attachDesktopAndPhone, attachScreenshot } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// The sidebar's search over the user's chats, with the offline demo model: a word from a later
// message finds its chat, the match is marked, and the keyboard opens it. English and zh-CN,
// desktop and the phone drawer; axe clean.

test.describe.configure({ mode: "serial" });
test.beforeAll(() => setE2eApprovalPolicy(e2eAdmin.email, "always"));

const PHONE = { width: 390, height: 844 };
const WORD = "periwinkle";

const problems: string[] = [];
test.beforeEach(() => void problems.splice(0));
test.afterEach(() => expect(problems).toEqual([]));

async function signIn(page: Page): Promise<ChatPage> {
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  return new ChatPage(page);
}

async function chatWith(chat: ChatPage, messages: string[]): Promise<string> {
  await chat.gotoNew();
  for (const text of messages) {
    await chat.send(text);
    await chat.waitForIdle();
  }
  return chat.threadId();
}

test("a word from a chat's third message finds it, marked, and the keyboard opens it", async ({ page }) => {
  const chat = await signIn(page);
  const found = await chatWith(chat, ["Hello there", "What's on my calendar tomorrow?", `Paint the fence ${WORD} blue`]);
  await chatWith(chat, ["Hello there"]);
  const box = page.getByTestId("thread-search");
  await expect(page.getByLabel("Search chats")).toHaveAttribute("data-testid", "thread-search");
  await expectNoSeriousAxeFindings(page, "empty search box");

  await box.fill(WORD);
  const hits = page.getByTestId("search-hit");
  await expect(hits).toHaveCount(1);
  await expect(page.getByTestId("thread-list")).toHaveCount(0);
  await expect(hits.first().getByTestId("search-snippet")).toContainText(`Paint the fence ${WORD} blue`);
  await expect(hits.first().locator("mark")).toHaveText([WORD]);
  await expect(page.getByTestId("search-status")).toHaveText("1 chat found");
  await expectNoSeriousAxeFindings(page, "search results");
  await attachDesktopAndPhone(page, "search");

  // ↓ reaches the result (a real link), Enter opens it.
  await box.press("ArrowDown");
  await expect(hits.first().getByRole("link")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/chat/${found}$`));
  await expect(chat.userMessages().last()).toHaveText(`Paint the fence ${WORD} blue`);

  // Escape clears the search and brings the list back; nothing found says so.
  await box.fill("xylophonequartz");
  await expect(page.getByTestId("search-status")).toHaveText("No chats match “xylophonequartz”.");
  await expect(hits).toHaveCount(0);
  await box.press("Escape");
  await expect(box).toHaveValue("");
  await expect(page.getByTestId("thread-list")).toBeVisible();
});

test("zh-CN on a phone: the search box speaks Chinese and a result opens from the drawer", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN", viewport: PHONE });
  const page = await context.newPage();
  const chat = await signIn(page);
  await page.getByTestId("sidebar-toggle").click();
  const box = page.getByLabel("搜索对话");
  await expect(box).toHaveAttribute("placeholder", "搜索对话…");
  await box.fill(WORD);
  const hit = page.getByTestId("search-hit").first();
  await expect(hit.locator("mark")).toHaveText([WORD]);
  await expect(page.getByTestId("search-status")).toHaveText("找到 1 个对话");
  await expectNoSeriousAxeFindings(page, "zh-CN phone search");
  await attachScreenshot(page, "search-phone-zh-CN");
  // Escape in the box clears it and leaves the drawer open; Tab then reaches the result.
  await box.press("Escape");
  await expect(box).toHaveValue("");
  await expect(page.getByTestId("thread-list")).toBeVisible();
  await box.fill(WORD);
  await expect(hit).toBeVisible();
  await box.press("Tab");
  await expect(hit.getByRole("link")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(chat.userMessages().last()).toHaveText(`Paint the fence ${WORD} blue`);
  await expect(page.locator(".chat-app")).toHaveAttribute("data-sidebar", "closed");
  await context.close();
});
