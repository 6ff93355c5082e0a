import { expect, type Locator, type Page } from "@playwright/test";

/** The web chat at /chat/{threadId}: conversation, composer and the list of chats. */
export class ChatPage {
  constructor(readonly page: Page) {}

  async gotoNew(): Promise<void> {
    await this.page.goto("/chat");
    await expect(this.page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await expect(this.view()).toBeVisible();
  }

  threadId(): string {
    const match = /\/chat\/([0-9a-f-]{36})/.exec(this.page.url());
    if (!match?.[1]) throw new Error(`not on a chat page: ${this.page.url()}`);
    return match[1];
  }

  view(): Locator {
    return this.page.getByTestId("chat-view");
  }

  /** The composer's text box (by test id: its label is in the page's language). */
  input(): Locator {
    return this.page.getByTestId("chat-input");
  }

  /** Before hydration Enter would only add a line to the server-rendered textarea. */
  async ready(): Promise<void> {
    await expect(this.page.getByTestId("composer")).toHaveAttribute("data-hydrated", "true");
  }

  async send(text: string): Promise<void> {
    await this.ready();
    await this.input().fill(text);
    await this.input().press("Enter");
  }

  stopButton(): Locator {
    return this.page.getByTestId("stop");
  }

  sendButton(): Locator {
    return this.page.getByTestId("send");
  }

  userMessages(): Locator {
    return this.view().getByTestId("user-message");
  }

  assistantMessages(): Locator {
    return this.view().getByTestId("assistant-message");
  }

  lastAssistant(): Locator {
    return this.assistantMessages().last();
  }

  liveTurns(): Locator {
    return this.view().getByTestId("live-turn");
  }

  cards(): Locator {
    return this.view().getByTestId("ui-schema-card");
  }

  toolCalls(): Locator {
    return this.view().getByTestId("tool-call");
  }

  modelBadge(): Locator {
    return this.page.getByTestId("model-badge");
  }

  sidebar(): Locator {
    return this.page.getByTestId("thread-sidebar");
  }

  threadItem(threadId: string): Locator {
    return this.sidebar().locator(`[data-thread-id="${threadId}"]`);
  }

  /** Resolves when no run is open any more: the composer offers Send again. */
  async waitForIdle(): Promise<void> {
    await expect(this.sendButton()).toBeVisible({ timeout: 30_000 });
    await expect(this.view().locator('[data-testid="live-turn"][data-status="running"], [data-testid="live-turn"][data-status="sending"]')).toHaveCount(0);
  }

  /** The text streamed so far into the newest answer, once it is at least `min` characters long. */
  async waitForStreamedText(min: number): Promise<string> {
    const answer = this.liveTurns().last().getByTestId("assistant-message").last();
    await expect.poll(async () => (await answer.textContent())?.length ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(min);
    return (await answer.textContent()) ?? "";
  }
}
