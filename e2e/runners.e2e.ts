import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { WORKER_RUNNER_ID, startWorkerRunner } from "../examples/runners/worker";
import { AdminConsolePage } from "./pages/admin-console-page";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

test.describe.configure({ mode: "serial" });

// An admin plugs an external runner (the SDK's worker example) in from the console and
// binds it to one user; that user's chat is answered by it through the host API (state,
// project_cli, the model), and the run page shows its result log and its host API calls.

test("an admin registers an external runner, binds it to a user, and the user's chat streams its answer", async ({ page, browser, baseURL }) => {
  const secret = `e2e-runner-${randomUUID()}`;
  const runner = await startWorkerRunner({ secret, hostUrl: baseURL! });
  try {
    const member = { email: `runner-user-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "runner-user-password" };
    const signIn = new SignInPage(page);
    await signIn.goto("/admin");
    await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
    await expect(page).toHaveURL(/\/admin$/);
    const admin = new AdminConsolePage(page);
    await admin.trpcMutation("users.create", { email: member.email, password: member.password, role: "user" });

    await page.getByTestId("admin-nav").getByRole("link", { name: "Runners" }).click();
    const runners = page.getByTestId("runners-panel");
    await expect(runners.getByTestId("runner-item").filter({ hasText: "plugin:dispatch/builtin/agent" })).toBeVisible();
    await runners.getByLabel("Runner base URL").fill(runner.url);
    await runners.getByLabel("Runner secret").fill(secret);
    await runners.getByTestId("runner-register-form").getByRole("button", { name: "Register" }).click();
    const endpoint = runners.getByTestId("runner-endpoint").filter({ hasText: runner.url });
    await expect(endpoint.getByTestId("runner-endpoint-status")).toHaveText("ok");
    await expect(endpoint.getByTestId("runner-item").filter({ hasText: WORKER_RUNNER_ID })).toBeVisible();

    const bindings = page.getByTestId("bindings-panel");
    await bindings.getByLabel("Runner", { exact: true }).selectOption(WORKER_RUNNER_ID);
    await bindings.getByLabel("For", { exact: true }).selectOption("user");
    await bindings.getByLabel("User email").fill(member.email);
    await bindings.getByRole("button", { name: "Create binding" }).click();
    await expect(bindings.getByTestId("binding-row").filter({ hasText: member.email })).toContainText(WORKER_RUNNER_ID);
    // The skills this binding's runs are shown (docs/skills.md), kept across a reload.
    const skill = (name: string) => page.getByTestId("binding-row").filter({ hasText: member.email }).getByRole("checkbox", { name });
    await skill("memory").click();
    await expect(skill("memory")).not.toBeChecked();
    await page.reload();
    await expect(skill("memory")).not.toBeChecked();
    await expect(skill("calendar")).toBeChecked();
    const row = bindings.getByTestId("binding-row").filter({ hasText: member.email });
    await expect(row).toContainText(WORKER_RUNNER_ID);
    // The binding's busy-thread default and its auto-approve flag are set from the row, and kept.
    await row.getByLabel("On a busy thread").selectOption("enqueue");
    await row.getByTestId("binding-auto-approve").click();
    await expect(row.getByTestId("binding-auto-approve")).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    const kept = page.getByTestId("bindings-panel").getByTestId("binding-row").filter({ hasText: member.email });
    await expect(kept.getByLabel("On a busy thread")).toHaveValue("enqueue");
    await expect(kept.getByTestId("binding-auto-approve")).toHaveText("Writes approved automatically");
    await kept.getByTestId("binding-auto-approve").click();
    await expect(kept.getByTestId("binding-auto-approve")).toHaveAttribute("aria-pressed", "false");
    await page.screenshot({ path: test.info().outputPath("admin-runners.png"), fullPage: true });

    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    const memberSignIn = new SignInPage(memberPage);
    await memberSignIn.goto("/chat");
    await memberSignIn.signIn(member.email, member.password);
    const chat = new ChatPage(memberPage);
    await expect(memberPage).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await chat.send("what is on my calendar on 2026-11-23?");
    await chat.waitForIdle();
    await expect(chat.lastAssistant()).toContainText("(turn 1 in this conversation)");
    const threadId = chat.threadId();
    await memberContext.close();

    await page.goto(`/admin/threads/${threadId}`);
    await page.locator(`main a[href^="/admin/runs/"]`).first().click();
    const results = page.getByTestId("runner-results");
    await expect(results).toBeVisible();
    await expect(results.getByTestId("runner-result-row").filter({ hasText: "run.completed" })).toContainText("applied");
    const calls = page.getByTestId("runner-api-calls");
    for (const action of ["state/get", "tools/call", "models/stream", "state/set"]) await expect(calls.getByText(action, { exact: true })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath("admin-run-external.png"), fullPage: true });
  } finally {
    await runner.close();
  }
});
