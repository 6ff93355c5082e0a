import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { startWebhookReceiver, type Receiver } from "../test/webhook-receiver";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// Webhooks in the chat settings (docs/webhooks.md): the user adds an endpoint (its signing secret
// shown once), a finished run is delivered to it, signed, and its delivery shows in the settings
// and in the console's webhook deliveries; turning it off and deleting it. en and zh-CN, axe clean.

test.describe.configure({ mode: "serial" });

let receiver: Receiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

async function signIn(page: Page): Promise<void> {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
}

test("a webhook added in the settings hears a finished run; its deliveries show there and in the console", async ({ page }) => {
  await signIn(page);
  await page.goto("/chat/settings");
  const section = page.getByTestId("webhooks-section");
  const url = receiver.url("/settings-hook");
  await section.getByLabel("Webhook URL").fill(url);
  await section.getByLabel("Note (optional)").fill("my automation");
  await section.getByRole("button", { name: "Add webhook" }).click();
  const secret = section.getByTestId("webhook-secret").locator("code");
  await expect(secret).toHaveText(/^whsec_/);
  receiver.secrets.set("/settings-hook", (await secret.textContent())!);
  const item = section.getByTestId("webhook").filter({ hasText: url });
  await expect(item.getByRole("status")).toContainText("On");
  await expect(item).toContainText("my automation");

  const chat = new ChatPage(page);
  await chat.gotoNew();
  await chat.send("Hello there");
  await chat.waitForIdle();
  await expect.poll(() => receiver.unique("/settings-hook").map((r) => r.payload?.type), { timeout: 30_000 }).toContain("run.completed");

  await page.goto("/chat/settings");
  await item.getByRole("button", { name: "Deliveries" }).click();
  await expect(item.getByTestId("webhook-delivery").filter({ hasText: "run.completed: delivered" }).first()).toBeVisible();
  await expectNoSeriousAxeFindings(page, "settings webhooks");
  await item.scrollIntoViewIfNeeded();
  await attachDesktopAndPhone(page, "settings-webhooks");

  // The console lists the user's endpoint with its delivery log.
  await page.goto("/admin/webhooks");
  const endpoint = page.getByTestId("webhook-endpoint").filter({ hasText: url });
  await expect(endpoint).toBeVisible();
  await attachDesktopAndPhone(page, "console-webhooks");

  await page.goto("/chat/settings");
  await item.getByRole("button", { name: "Turn off" }).click();
  await expect(item.getByRole("status")).toContainText("Off");
  await item.getByRole("button", { name: `Delete the webhook ${url}` }).click();
  await expect(item).toHaveCount(0);
});

test("zh-CN: the webhooks section speaks Chinese", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN" });
  const page = await context.newPage();
  await signIn(page);
  await page.goto("/chat/settings");
  const section = page.getByTestId("webhooks-section");
  await expect(section.getByRole("heading", { name: "Webhook" })).toBeVisible();
  const url = receiver.url("/settings-hook-zh");
  await section.getByLabel("Webhook 地址").fill(url);
  await section.getByRole("button", { name: "添加 Webhook" }).click();
  await expect(section.getByTestId("webhook").filter({ hasText: url }).getByRole("status")).toContainText("已开启");
  await expectNoSeriousAxeFindings(page, "settings webhooks zh-CN");
  await attachDesktopAndPhone(page, "settings-webhooks-zh-CN");
  await section.getByRole("button", { name: `删除 Webhook ${url}` }).click();
  await expect(section.getByTestId("webhook").filter({ hasText: url })).toHaveCount(0);
  await context.close();
});
