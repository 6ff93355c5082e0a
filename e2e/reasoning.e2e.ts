import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin, FAKE_REASONER } from "../playwright.config";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// A reasoning model in the web chat: its thinking shows above the answer, collapsed to one line
// ("Thinking…", then how long it took), the same after a reload mid-thought and after the run,
// in English and in Chinese. The model is the tests' fake one (e2e/fake-llm-server.mjs), which
// thinks when the message says [[think:…]] and streams a word every [[delay]] ms.

test.describe.configure({ mode: "serial" });

const THOUGHT = "The user says hello, so I answer in kind and keep it short.";

async function signIn(page: Page): Promise<ChatPage> {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const chat = new ChatPage(page);
  await page.getByTestId("model-picker").locator("select").selectOption(FAKE_REASONER);
  return chat;
}

test("a reasoning model's thought shows collapsed above its answer, and the same after a reload mid-thought", async ({ page }) => {
  const chat = await signIn(page);
  await chat.send(`[[delay:250]] [[think:${THOUGHT}]] hello there`);
  const reasoning = chat.view().getByTestId("reasoning");
  await expect(reasoning).toHaveAttribute("data-streaming", "true");
  await expect(reasoning.getByTestId("reasoning-label")).toHaveText("Thinking…");

  // A reload while it thinks: the page rejoins the run and shows the thought from its start.
  await expect.poll(async () => ((await reasoning.textContent()) ?? "").length).toBeGreaterThan("Thinking…".length + 8);
  await page.reload();
  const rejoined = chat.liveTurns().first();
  await expect(rejoined.getByTestId("reasoning")).toHaveCount(1);
  await chat.waitForIdle();
  await expect(rejoined.getByTestId("reasoning-label")).toHaveText(/^Thought for (\d+ s|less than a second)$/);
  const label = (await rejoined.getByTestId("reasoning-label").textContent()) ?? "";
  await expect(rejoined.getByTestId("assistant-message")).toHaveText("You said: hello there");

  // Collapsed: the thought is there on demand.
  const thought = rejoined.getByTestId("reasoning").locator(".chat-reasoning-text");
  await expect(thought).toBeHidden();
  await rejoined.getByTestId("reasoning-label").click();
  await expect(thought).toHaveText(THOUGHT);
  await expectNoSeriousAxeFindings(page, "reasoning");
  await attachDesktopAndPhone(page, "reasoning");

  // After the run, from the thread's history: the same thought, the same time, once.
  await page.reload();
  await expect(chat.view().getByTestId("reasoning")).toHaveCount(1);
  await expect(chat.view().getByTestId("reasoning-label")).toHaveText(label);
  await expect(chat.assistantMessages()).toHaveText(["You said: hello there"]);
});

test("zh-CN: the thought's line speaks Chinese", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN" });
  const page = await context.newPage();
  const chat = await signIn(page);
  await chat.send(`[[think:${THOUGHT}]] 你好`);
  await chat.waitForIdle();
  await expect(chat.view().getByTestId("reasoning-label")).toHaveText(/^思考了(不到 1 秒| \d+ 秒)$/);
  await expectNoSeriousAxeFindings(page, "reasoning zh-CN");
  await attachDesktopAndPhone(page, "reasoning-zh-CN");
  await context.close();
});
