import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";

type TrpcResult<T> = { result: { data: { json: T } } };

/** The admin console: dashboard at /admin, runs table, run page, and its tRPC API. */
export class AdminConsolePage {
  constructor(readonly page: Page) {}

  private get request(): APIRequestContext {
    return this.page.request;
  }

  async trpcQuery<T>(path: string, input: unknown): Promise<T> {
    const res = await this.request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
    expect(res.status(), `${path} answered ${res.status()}`).toBe(200);
    return ((await res.json()) as TrpcResult<T>).result.data.json;
  }

  async trpcMutation<T>(path: string, input: unknown): Promise<T> {
    const res = await this.request.post(`/api/trpc/${path}`, { data: { json: input } });
    expect(res.status(), `${path} answered ${res.status()}`).toBe(200);
    return ((await res.json()) as TrpcResult<T>).result.data.json;
  }

  /** A new API key for the user with this email, created through the admin API. */
  async createApiKeyFor(email: string): Promise<string> {
    const users = await this.trpcQuery<{ items: { id: string; email: string }[] }>("users.list", { limit: 100 });
    const user = users.items.find((u) => u.email === email);
    if (!user) throw new Error(`no user ${email}`);
    return (await this.trpcMutation<{ key: string }>("apiKeys.create", { userId: user.id, name: "e2e admin console" })).key;
  }

  async gotoDashboard(): Promise<void> {
    await this.page.goto("/admin");
    await expect(this.page.getByRole("heading", { name: "Admin console" })).toBeVisible();
  }

  dashboard(): Locator {
    return this.page.getByTestId("dashboard");
  }

  async gotoRuns(): Promise<void> {
    await this.page.goto("/admin/runs");
    await expect(this.page.getByRole("heading", { name: "Runs", exact: true })).toBeVisible();
  }

  runRows(): Locator {
    return this.page.getByTestId("run-row");
  }

  runRow(runId: string): Locator {
    return this.page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  }

  async filterRuns(filters: { userEmail?: string; statuses?: string[] }): Promise<void> {
    const form = this.page.getByTestId("runs-filter-form");
    if (filters.userEmail !== undefined) await form.getByLabel("User email").fill(filters.userEmail);
    if (filters.statuses) {
      for (const status of ["queued", "running", "completed", "failed", "cancelled"]) {
        await form.getByRole("checkbox", { name: status, exact: true }).setChecked(filters.statuses.includes(status));
      }
    }
    await form.getByRole("button", { name: "Apply filters" }).click();
  }

  timelineRows(): Locator {
    return this.page.getByTestId("timeline-row");
  }

  toolCalls(): Locator {
    return this.page.getByTestId("tool-call");
  }
}
