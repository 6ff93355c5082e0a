import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// Schedules in the chat settings and the console (docs/schedules.md): the user sees when each
// runs next, pauses, resumes and deletes it; the console lists everyone's.

test("the chat settings list the user's schedules to pause, resume and delete; the console lists them", async ({ page }) => {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const name = `Weekly summary ${randomUUID().slice(0, 6)}`;
  const made = await page.request.post("/api/v1/schedules", {
    data: { name, message: "summarize my week", cron: "0 9 * * 1", timeZone: "Europe/Berlin" },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(made.status()).toBe(201);

  await page.goto("/chat/settings");
  const item = page.getByTestId("schedules-section").getByTestId("schedule").filter({ hasText: name });
  await expect(item).toContainText("0 9 * * 1 (Europe/Berlin)");
  await expect(item).toContainText("Next:");
  await item.getByRole("button", { name: "Pause" }).click();
  await expect(item.getByRole("status")).toHaveText("Paused");
  await item.getByRole("button", { name: "Resume" }).click();
  await expect(item.getByRole("status")).toContainText("Next:");
  await expectNoSeriousAxeFindings(page, "settings schedules");
  await item.scrollIntoViewIfNeeded();
  await attachDesktopAndPhone(page, "settings-schedules");

  await page.goto("/admin/schedules");
  await expect(page.getByTestId("admin-schedule").filter({ hasText: name })).toContainText("0 9 * * 1 (Europe/Berlin)");
  await attachDesktopAndPhone(page, "console-schedules");

  await page.goto("/chat/settings");
  await item.getByRole("button", { name: `Delete the schedule “${name}”` }).click();
  await expect(item).toHaveCount(0);
});
