import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { AdminConsolePage } from "./pages/admin-console-page";
import { SignInPage } from "./pages/sign-in-page";

test.describe.configure({ mode: "serial" });

// The offline demo model answers this with a calendar.read tool call and a calendar card.
const TOOL_PROMPT = "What's on my calendar today?";
const member = { email: `member-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "member-password" };

async function startRun(request: APIRequestContext, key: string, text: string): Promise<string> {
  const runId = `e2e-admin-${randomUUID()}`;
  const res = await request.post("/api/v1/agent/runs", {
    headers: { authorization: `Bearer ${key}` },
    data: { threadId: randomUUID(), runId, state: {}, messages: [{ id: `m-${randomUUID()}`, role: "user", content: text }], tools: [], context: [], forwardedProps: {} },
  });
  expect(res.status()).toBe(202);
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/agent/runs/${runId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string }).status, {
      timeout: 30_000,
    })
    .toBe("completed");
  return runId;
}

test("an admin finds a run by its filters and inspects its events and tool output", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto("/admin");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/admin$/);
  const admin = new AdminConsolePage(page);

  const key = await admin.createApiKeyFor(e2eAdmin.email);
  const runId = await startRun(page.request, key, TOOL_PROMPT);

  await admin.gotoDashboard();
  await expect(admin.dashboard().getByTestId("stat-runs")).toHaveAttribute("data-value", /^[1-9]\d*$/);
  await expect(admin.dashboard().getByTestId("stat-error-rate")).toHaveAttribute("data-value", "0%");
  await expect(admin.dashboard().locator('[data-testid="chart-bar"]:not([data-runs="0"])')).not.toHaveCount(0);
  await admin.dashboard().getByRole("button", { name: "7 d" }).click();
  await expect(admin.dashboard().getByTestId("chart-bar")).toHaveCount(168);
  await admin.dashboard().getByRole("button", { name: "24 h" }).click();
  await expect(admin.dashboard().getByTestId("chart-bar")).toHaveCount(24);
  await page.screenshot({ path: test.info().outputPath("admin-dashboard.png"), fullPage: true });

  await admin.gotoRuns();
  await expect(admin.runRow(runId)).toBeVisible();
  await admin.filterRuns({ userEmail: "ADMIN@E2E", statuses: ["failed"] });
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.getByTestId("runs-empty")).toBeVisible();
  await admin.filterRuns({ statuses: ["completed"] });
  await expect(page).toHaveURL(/status=completed&user=ADMIN%40E2E/);
  await expect(admin.runRow(runId)).toBeVisible();
  await expect(admin.runRow(runId)).toHaveAttribute("data-status", "completed");
  for (const row of await admin.runRows().all()) await expect(row).toContainText(e2eAdmin.email);
  await page.screenshot({ path: test.info().outputPath("admin-runs.png"), fullPage: true });

  // Runs that moved between instances: none of this admin's (each ran where it was accepted).
  await page.goto("/admin/runs?user=ADMIN%40E2E&attempts=moved");
  await expect(page.getByLabel("Executions")).toHaveValue("moved");
  await expect(page.getByTestId("runs-empty")).toBeVisible();
  await page.goto("/admin/runs?status=completed&user=ADMIN%40E2E");

  // The filters live in the URL: a reload keeps them.
  await page.reload();
  await expect(page.getByLabel("User email")).toHaveValue("ADMIN@E2E");
  await expect(admin.runRow(runId)).toBeVisible();

  // Runs are listed by their prompt; the run's page opens with the conversation.
  await expect(admin.runRow(runId).getByTestId("run-link")).toHaveText(TOOL_PROMPT);
  await admin.runRow(runId).getByTestId("run-link").click();
  await expect(page.getByTestId("run-title")).toHaveText(TOOL_PROMPT);
  const conversation = page.getByTestId("run-conversation");
  await expect(conversation.getByTestId("user-message")).toHaveText(TOOL_PROMPT);
  await expect(conversation.getByTestId("ui-schema-card")).toHaveAttribute("data-state", "valid");
  await expect(conversation.getByTestId("assistant-message")).not.toBeEmpty();
  await expect(page.getByTestId("run-status")).toHaveText("completed");
  await expect(page.getByTestId("run-header")).toContainText(e2eAdmin.email);
  await expect(page.getByTestId("run-usage")).toContainText("total");
  await expect(admin.timelineRows().first()).toHaveAttribute("data-type", "RUN_STARTED");
  await expect(admin.timelineRows().last()).toHaveAttribute("data-type", "RUN_FINISHED");
  // Chunks are grouped: one row per message and per tool call, raw events inside.
  await expect(page.locator('[data-testid="timeline-row"][data-type="TOOL_CALL"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="timeline-row"][data-type="TEXT_MESSAGE_CONTENT"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="timeline-row"][data-type="TEXT_MESSAGE"]').first()).toHaveAttribute("data-events", /^([3-9]|\d{2,})$/);
  const first = admin.timelineRows().first();
  await first.locator("summary").click();
  await expect(first.getByTestId("event-payload")).toContainText(`"runId": "${runId}"`);

  await expect(admin.toolCalls()).toHaveCount(1);
  const call = admin.toolCalls().first();
  await expect(call.getByTestId("tool-status")).toHaveText("success");
  await expect(call.getByTestId("tool-args")).toContainText('"module": "calendar"');
  await expect(call.getByTestId("tool-result")).toContainText('"method": "read"');
  await expect(call.getByTestId("ui-schema-card")).toHaveAttribute("data-state", "valid");
  await expect(page.getByTestId("latency-stages")).toContainText("tool_execution");
  // One execution, on the server's instance, that finished the run.
  const attempts = page.getByTestId("run-attempts").getByTestId("attempt-row");
  await expect(attempts).toHaveCount(1);
  await expect(attempts.first()).toHaveAttribute("data-end-reason", "finished");
  await expect(attempts.first()).toContainText("finished the run");
  await page.screenshot({ path: test.info().outputPath("admin-run.png"), fullPage: true });

  // On a phone the page reflows; only the wide tables scroll, inside their own box.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: test.info().outputPath("admin-run-phone.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.getByTestId("run-thread").getByRole("link").click();
  await expect(page.getByTestId("thread-header")).toContainText(e2eAdmin.email);
  await expect(page.getByTestId("thread-message")).toHaveCount(3);
  await expect(page.locator('[data-testid="thread-message"][data-role="tool"]').getByTestId("ui-schema-card")).toBeVisible();
  await page.getByTestId("thread-message").first().locator("summary").click();
  await expect(page.getByTestId("message-metadata").first()).toContainText('"stage": "input"');
  await page.screenshot({ path: test.info().outputPath("admin-thread.png"), fullPage: true });

  await admin.trpcMutation("users.create", { email: member.email, password: member.password, role: "user" });
});

test("a non-admin cannot open the console or call its API", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(member.email, member.password);
  await expect(page.getByTestId("signed-in-as")).toHaveText(member.email);
  for (const path of ["/admin", "/admin/runs", `/admin/runs/${randomUUID()}`, "/admin/threads"]) {
    await page.goto(path);
    await expect(page.getByTestId("forbidden")).toBeVisible();
    await expect(page.getByTestId("admin-nav")).toHaveCount(0);
  }
  const res = await page.request.get(`/api/trpc/adminRuns.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`);
  expect(res.status()).toBe(403);
});
