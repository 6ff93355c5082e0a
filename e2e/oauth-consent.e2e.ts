import { createHash, randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { SignInPage } from "./pages/sign-in-page";

// The OAuth consent page an MCP client sends its user to (docs/mcp.md#oauth): signed out, the
// user signs in and comes back; they see which app asks, in their language, answer with the
// keyboard, and the browser goes back to the app with a code (or access_denied). The settings
// list the app until it is disconnected.

test.describe.configure({ mode: "serial" });

const REDIRECT = "http://127.0.0.1:9/callback";

async function authorizeUrl(page: Page, name: string) {
  const registered = await page.request.post("/api/v1/oauth/register", { data: { client_name: name, redirect_uris: [REDIRECT] } });
  expect(registered.status()).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const params = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "e2e-state",
  });
  return { url: `/oauth/authorize?${params}`, clientId: client_id, verifier };
}

/** The app's redirect URI is answered here: nothing listens there. */
async function catchRedirect(page: Page): Promise<() => Promise<URL>> {
  let landed: URL | null = null;
  await page.route(`${REDIRECT}**`, async (route) => {
    landed = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/plain", body: "back in the app" });
  });
  return async () => {
    await expect.poll(() => landed !== null).toBe(true);
    return landed!;
  };
}

test("a signed-out user signs in, allows an app with the keyboard, and the app gets a code that works", async ({ page }) => {
  const { url, clientId, verifier } = await authorizeUrl(page, "E2E Assistant");
  await page.goto(url);
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=/);
  await new SignInPage(page).signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/oauth\/authorize\?/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("E2E Assistant wants to use your Dispatch calendar, contacts and memory");
  await expect(page.getByRole("form")).toBeVisible();
  await expectNoSeriousAxeFindings(page, "consent");

  const landed = await catchRedirect(page);
  await page.getByRole("button", { name: "Allow" }).focus();
  await page.keyboard.press("Enter");
  const back = await landed();
  expect(back.searchParams.get("error_description")).toBeNull();
  expect(back.searchParams.get("state")).toBe("e2e-state");
  const code = back.searchParams.get("code")!;
  expect(code).toMatch(/^dspac_/);

  const token = await page.request.post("/api/v1/oauth/token", {
    form: { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId },
  });
  expect(token.status()).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  const listed = await page.request.post("/api/v1/mcp", {
    headers: { authorization: `Bearer ${access_token}`, accept: "application/json, text/event-stream" },
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });
  expect(listed.status()).toBe(200);

  // The settings list the app; disconnecting it ends its token.
  await page.goto("/chat/settings");
  const section = page.getByTestId("mcp-clients-section");
  await expect(section).toContainText("E2E Assistant");
  await section.getByRole("button", { name: "Disconnect E2E Assistant" }).click();
  await expect(section).not.toContainText("E2E Assistant");
  const refused = await page.request.post("/api/v1/mcp", {
    headers: { authorization: `Bearer ${access_token}`, accept: "application/json, text/event-stream" },
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });
  expect(refused.status()).toBe(401);
});

test("in Chinese, Deny sends the user back to the app with access_denied", async ({ page, context }) => {
  await new SignInPage(page).goto();
  await new SignInPage(page).signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).not.toHaveURL(/\/sign-in/);
  const { url } = await authorizeUrl(page, "演示助手");
  await context.addCookies([{ name: "dispatch-locale", value: "zh-CN", url: new URL(page.url()).origin }]);
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("演示助手 想要使用你在 Dispatch 中的日历、联系人和记忆");
  await expectNoSeriousAxeFindings(page, "consent zh-CN");
  const landed = await catchRedirect(page);
  await page.getByRole("button", { name: "拒绝" }).click();
  const back = await landed();
  expect(back.searchParams.get("error")).toBe("access_denied");
  expect(back.searchParams.get("code")).toBeNull();
});

test("a request from an unknown app is explained, not followed", async ({ page }) => {
  await page.goto(`/oauth/authorize?response_type=code&client_id=00000000-0000-4000-8000-000000000000&redirect_uri=${encodeURIComponent(REDIRECT)}`);
  await expect(page.getByRole("alert", { name: "This connection request cannot be used" })).toContainText("not registered with Dispatch");
  expect(new URL(page.url()).pathname).toBe("/oauth/authorize");
});
