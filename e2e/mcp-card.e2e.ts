import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin, FAKE_REASONER } from "../playwright.config";
import { startTicketsServer, type TicketsServer } from "../test/mcp-servers";
import { AdminConsolePage } from "./pages/admin-console-page";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// An MCP tool's result in the chat (docs/mcp.md): a card like the other tools' cards, its title the
// tool in words and the server it ran on ("Find ticket · on tickets"), its fields readable, no JSON
// on the card; the same after a reload and in Chinese. (The fake model's own answer echoes the
// tool's text as it got it; that is the test model, not the card.) The tool runs on the tests' tickets server, called by the
// fake model, which follows the [[tool:…]] it is given.

test.describe.configure({ mode: "serial" });

const token = `e2e-${randomUUID()}`;
let tickets: TicketsServer;

test.beforeAll(async ({ browser }) => {
  tickets = await startTicketsServer({ token });
  const page = await browser.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto("/admin");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/admin$/);
  const admin = new AdminConsolePage(page);
  await admin.trpcMutation("mcpServers.register", { name: "tickets", url: tickets.url, bearerToken: token });
  await admin.trpcMutation("mcpServers.grant", { name: "tickets", email: e2eAdmin.email });
  await page.close();
});

test.afterAll(async () => {
  await tickets?.stop();
});

async function askForTicket(page: Page, words: string): Promise<ChatPage> {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const chat = new ChatPage(page);
  await chat.gotoNew();
  await page.getByTestId("model-picker").locator("select").selectOption(FAKE_REASONER);
  await chat.send(`[[tool:tickets.find_ticket {"id":"T-5"}]] ${words}`);
  await chat.waitForIdle();
  return chat;
}

test("an MCP tool's result is a card naming the tool and its server, the same after a reload", async ({ page }) => {
  const chat = await askForTicket(page, "look it up");
  // The tool's structured answer as labelled fields, under the tool in words and its server.
  const card = chat.cards().filter({ hasText: "Find ticket · on tickets" }).last();
  await expect(card.getByRole("heading", { name: "Find ticket · on tickets" })).toBeVisible();
  await expect(card).toContainText("Printer on fire");
  await expect(card).toContainText("T-5");
  await expect(card).not.toContainText("{");
  await expect(card).not.toContainText("find_ticket");

  await page.reload();
  const again = chat.cards().filter({ hasText: "Find ticket · on tickets" }).last();
  await expect(again).toContainText("Printer on fire");
  await expect(again).not.toContainText("{");

  await expectNoSeriousAxeFindings(page, "MCP card");
  await attachDesktopAndPhone(page, "mcp-card");
});

test("zh-CN: the MCP card names its server in Chinese", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN" });
  const page = await context.newPage();
  const chat = await askForTicket(page, "查一下");
  const card = chat.cards().filter({ hasText: "Find ticket · 来自 tickets" }).last();
  await expect(card.getByRole("heading", { name: "Find ticket · 来自 tickets" })).toBeVisible();
  await expect(card).toContainText("Printer on fire");
  await expect(card).not.toContainText("{");
  await expectNoSeriousAxeFindings(page, "MCP card zh-CN");
  await attachDesktopAndPhone(page, "mcp-card-zh-CN");
  await context.close();
});
