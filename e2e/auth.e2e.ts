import { randomUUID } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { AdminConsolePage } from "./pages/admin-console-page";
import { withDatabase } from "./pages/database";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { SignInPage } from "./pages/sign-in-page";

test.describe.configure({ mode: "serial" });

test("an anonymous visitor is sent to sign in", async ({ page }) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=/);
});

test("a wrong password shows an error and does not sign in", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await expect(page.getByRole("heading", { name: "Sign in to Dispatch" })).toBeVisible();
  await signIn.signIn(e2eAdmin.email, "not-the-password");
  await expect(signIn.error()).toHaveText("Wrong email or password.");
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("the admin signs in, sees the console, creates a user, and signs out", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto("/admin");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("heading", { name: "Admin console" })).toBeVisible();
  await expect(page.getByTestId("health-status")).toContainText("reachable");
  await expect(page.getByTestId("users-table")).toContainText(e2eAdmin.email);

  await page.getByLabel("New user email").fill("member@e2e.dispatch");
  await page.getByLabel("New user password").fill("member-password");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByTestId("users-table")).toContainText("member@e2e.dispatch");

  await page.getByLabel("Key owner").selectOption({ label: "member@e2e.dispatch" });
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent()) ?? "";
  expect(key).toMatch(/^dsp_/);
  await expect(page.getByTestId("api-keys-table")).toContainText("member@e2e.dispatch");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("a non-admin cannot open the admin console", async ({ page, request }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn("member@e2e.dispatch", "member-password");
  await expect(page.getByTestId("signed-in-as")).toHaveText("member@e2e.dispatch");
  await page.goto("/admin");
  await expect(page.getByTestId("forbidden")).toBeVisible();
  const res = await page.request.get("/api/trpc/users.list?input=" + encodeURIComponent(JSON.stringify({ json: { limit: 5 } })));
  expect(res.status()).toBe(403);
  const anon = await request.get("/api/trpc/users.list?input=" + encodeURIComponent(JSON.stringify({ json: { limit: 5 } })), {
    headers: { cookie: "" },
  });
  expect(anon.status()).toBe(401);
});

/** The admin on the console's overview, in a page of its own. */
async function adminConsole(page: Page): Promise<AdminConsolePage> {
  const signIn = new SignInPage(page);
  await signIn.goto("/admin");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/admin$/);
  return new AdminConsolePage(page);
}

/** A browser of the user's own, signed in (or refused) with this password. */
async function userSignsIn(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(email, password);
  return page;
}

test("an admin deactivates a user: their session ends, sign-in and API key are refused; reactivation restores both", async ({ page, browser }) => {
  const admin = await adminConsole(page);
  const user = { email: `leaver-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "leaver-password" };
  await admin.trpcMutation("users.create", { ...user, role: "user" });
  const key = await admin.createApiKeyFor(user.email);
  const me = () => page.request.get("/api/v1/me", { headers: { authorization: `Bearer ${key}` } });
  const userPage = await userSignsIn(browser, user.email, user.password);
  await expect(userPage.getByTestId("signed-in-as")).toHaveText(user.email);

  await page.reload();
  const row = page.locator(`[data-testid="user-row"][data-email="${user.email}"]`);
  await expect(row.getByTestId("user-status")).toHaveText("active");
  await row.getByTestId("deactivate-user").click();
  await expect(row).toContainText(`Deactivate ${user.email}?`);
  await row.getByTestId("deactivate-user-confirm").click();
  await expect(row.getByTestId("user-status")).toHaveText("deactivated");
  await expectNoSeriousAxeFindings(page, "/admin (a deactivated user)");

  await userPage.reload();
  await expect(userPage).toHaveURL(/\/sign-in/);
  const again = new SignInPage(userPage);
  await again.signIn(user.email, user.password);
  await expect(again.error()).toHaveText("This account has been deactivated. Ask an admin to reactivate it.");
  const refused = await me();
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toEqual({ error: { code: "FORBIDDEN", message: "The account this API key belongs to has been deactivated: an admin can reactivate it" } });
  // Not even for another admin: the admin's own row offers no deactivation.
  await expect(page.locator(`[data-testid="user-row"][data-email="${e2eAdmin.email}"]`).getByTestId("deactivate-user")).toHaveCount(0);

  await row.getByTestId("reactivate-user").click();
  await row.getByTestId("reactivate-user-confirm").click();
  await expect(row.getByTestId("user-status")).toHaveText("active");
  expect((await me()).status()).toBe(200);
  await again.signIn(user.email, user.password);
  await expect(userPage.getByTestId("signed-in-as")).toHaveText(user.email);
  await userPage.context().close();
});

test("a one-time password from the admin: the user must choose a new one first; then the new one works and the old ones do not", async ({ page, browser }) => {
  await adminConsole(page);
  const user = { email: `forgetful-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "first-password" };
  await new AdminConsolePage(page).trpcMutation("users.create", { ...user, role: "user" });
  await page.reload();
  const row = page.locator(`[data-testid="user-row"][data-email="${user.email}"]`);
  await row.getByTestId("reset-password").click();
  await row.getByTestId("reset-password-confirm").click();
  const oneTimePassword = (await page.getByTestId("one-time-password").textContent()) ?? "";
  expect(oneTimePassword).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
  await expect(page.getByTestId("copy-one-time-password")).toBeVisible();
  await expect(row.getByTestId("user-status")).toContainText("must choose a password");
  await expectNoSeriousAxeFindings(page, "/admin (a one-time password shown)");
  await page.getByTestId("users-table").screenshot({ path: test.info().outputPath("admin-users.png") });

  const userPage = await userSignsIn(browser, user.email, oneTimePassword);
  await expect(userPage).toHaveURL(/\/change-password$/);
  await expect(userPage.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await expectNoSeriousAxeFindings(userPage, "/change-password");
  // Nothing else is reachable until the new password is chosen.
  for (const path of ["/chat", "/chat/settings", "/"]) {
    await userPage.goto(path);
    await expect(userPage).toHaveURL(/\/change-password$/);
  }
  const choose = async (password: string, confirm = password) => {
    await userPage.getByLabel("New password", { exact: true }).fill(password);
    await userPage.getByLabel("New password again").fill(confirm);
    await userPage.getByRole("button", { name: "Save and continue" }).click();
  };
  await choose("short");
  await expect(userPage.getByTestId("choose-password-error")).toHaveText("Your new password must be at least 8 characters.");
  await choose("second-password", "second-passw0rd");
  await expect(userPage.getByTestId("choose-password-error")).toHaveText("The two passwords differ: type the same new password twice.");
  await choose(oneTimePassword);
  await expect(userPage.getByTestId("choose-password-error")).toHaveText("Choose a password other than the one-time password.");
  await choose("second-password");
  await expect(userPage).toHaveURL(/\/chat/);
  await expect(userPage.getByTestId("signed-in-as")).toHaveText(user.email);
  await userPage.context().close();

  for (const old of [user.password, oneTimePassword]) {
    const refused = await userSignsIn(browser, user.email, old);
    await expect(new SignInPage(refused).error()).toHaveText("Wrong email or password.");
    await refused.context().close();
  }
  const fine = await userSignsIn(browser, user.email, "second-password");
  await expect(fine.getByTestId("signed-in-as")).toHaveText(user.email);
  await fine.context().close();
  await page.reload();
  await expect(row.getByTestId("user-status")).toHaveText("active");
});

test("a user changes their own password in settings: each refusal says why; their other browsers are signed out; the new password signs in, the old one does not", async ({ page, browser }) => {
  await adminConsole(page);
  const user = { email: `changer-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "first-password" };
  await new AdminConsolePage(page).trpcMutation("users.create", { ...user, role: "user" });
  const elsewhere = await userSignsIn(browser, user.email, user.password);
  await expect(elsewhere.getByTestId("signed-in-as")).toHaveText(user.email);
  const mine = await userSignsIn(browser, user.email, user.password);
  await expect(mine.getByTestId("signed-in-as")).toHaveText(user.email);
  await mine.goto("/chat/settings");
  const section = mine.getByTestId("password-section");
  await expect(section.getByRole("heading", { name: "Password" })).toBeVisible();
  const change = async (current: string, password: string, confirm = password) => {
    await section.getByLabel("Current password").fill(current);
    await section.getByLabel("New password", { exact: true }).fill(password);
    await section.getByLabel("New password again").fill(confirm);
    await section.getByRole("button", { name: "Change password" }).click();
  };
  const refusal = section.getByTestId("password-error");
  await change("not-my-password", "second-password");
  await expect(refusal).toHaveText("Your current password is not right.");
  await change(user.password, "second-password", "second-passw0rd");
  await expect(refusal).toHaveText("The two passwords differ: type the same new password twice.");
  await change(user.password, "short");
  await expect(refusal).toHaveText("Your new password must be at least 8 characters.");
  await change(user.password, user.password);
  await expect(refusal).toHaveText("Choose a password other than your current one.");
  await expectNoSeriousAxeFindings(mine, "/chat/settings (a password refused)");
  await change(user.password, "second-password");
  await expect(section.getByTestId("password-changed")).toContainText("Password changed.");
  await expect(refusal).toHaveCount(0);
  // This browser stays signed in; the other one is signed out.
  await mine.goto("/chat/settings");
  await expect(mine.getByTestId("password-section")).toBeVisible();
  await elsewhere.reload();
  await expect(elsewhere).toHaveURL(/\/sign-in/);
  await elsewhere.context().close();
  // Audited: each check of the current password, refused or not, is a row.
  const checks = await withDatabase(async (db) => (await db.query<{ succeeded: boolean }>(`select succeeded from auth_attempts where kind = 'password_change' and account = $1 order by created_at`, [user.email])).rows);
  expect(checks.map((c) => c.succeeded)).toEqual([false, true, true]);

  await mine.getByRole("button", { name: "Sign out" }).filter({ visible: true }).first().click();
  await expect(mine).toHaveURL(/\/sign-in/);
  const old = new SignInPage(mine);
  await old.signIn(user.email, user.password);
  await expect(old.error()).toHaveText("Wrong email or password.");
  await old.signIn(user.email, "second-password");
  await expect(mine.getByTestId("signed-in-as")).toHaveText(user.email);
  await mine.context().close();
});

test("zh-CN: a refused password change is said in Chinese", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN" });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto("/chat/settings");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  const section = page.getByTestId("password-section");
  await expect(section.getByRole("heading", { name: "密码" })).toBeVisible();
  await section.getByLabel("当前密码").fill(e2eAdmin.password);
  await section.getByLabel("新密码", { exact: true }).fill("another-password");
  await section.getByLabel("再次输入新密码").fill("another-passw0rd");
  await section.getByRole("button", { name: "修改密码" }).click();
  await expect(section.getByTestId("password-error")).toHaveText("两次输入的密码不一致，请输入相同的新密码。");
  await context.close();
});

test("zh-CN: the sign-in page and the console speak Chinese", async ({ browser }) => {
  const context = await browser.newContext({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });
  const page = await context.newPage();
  await page.goto("/sign-in?callbackUrl=/admin");
  await expect(page.getByRole("heading", { name: "登录 Dispatch" })).toBeVisible();
  await page.getByLabel("邮箱").fill(e2eAdmin.email);
  await page.getByLabel("密码").fill("not-the-password");
  await page.getByRole("button", { name: "登录" }).click();
  await expect(page.getByTestId("sign-in-error")).toHaveText("邮箱或密码错误。");
  await expectNoSeriousAxeFindings(page, "/sign-in (zh-CN)");
  await page.getByLabel("密码").fill(e2eAdmin.password);
  await page.getByRole("button", { name: "登录" }).click();
  await expect(page.getByRole("heading", { name: "管理控制台", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "用户" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "API 密钥" })).toBeVisible();
  await expect(page.getByTestId("users-table").getByRole("columnheader", { name: "状态" })).toBeVisible();
  // Times are in the zone chosen in settings (its cookie), not the browser's, in the page's language.
  await context.addCookies([{ name: "dispatch-tz", value: "America/New_York", url: page.url() }]);
  await page.reload();
  const users = await new AdminConsolePage(page).trpcQuery<{ items: { email: string; createdAt: string }[] }>("users.list", { limit: 100 });
  const createdAt = new Date(users.items.find((u) => u.email === e2eAdmin.email)!.createdAt);
  const inNewYork = new Intl.DateTimeFormat("zh-CN", { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: "America/New_York" });
  await expect(page.locator(`[data-testid="user-row"][data-email="${e2eAdmin.email}"] td`).nth(4)).toHaveText(inNewYork.format(createdAt));
  await page.getByTestId("admin-nav").getByRole("link", { name: "运行", exact: true }).click();
  await expect(page.getByRole("heading", { name: "运行", level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: "应用筛选" })).toBeAttached();
  await expectNoSeriousAxeFindings(page, "/admin/runs (zh-CN)");
  await page.screenshot({ path: test.info().outputPath("console-zh-CN.png"), fullPage: true });
  await context.close();
});
