import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { SignInPage } from "./pages/sign-in-page";

test.describe.configure({ mode: "serial" });

test("an anonymous visitor is sent to sign in", async ({ page }) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=/);
});

test("a wrong password shows an error and does not sign in", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
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
