import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { AdminConsolePage } from "./pages/admin-console-page";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

test.describe.configure({ mode: "serial" });

// An admin registers an agent that serves AG-UI from the console and binds it to one user; that
// user's web chat is answered by the agent through Dispatch (docs/agents.md). The agent here is a
// few lines of SSE; test/framework-agents runs a Mastra agent the same way over real HTTP.

/** An AG-UI agent that answers each run with the last user message it was sent and how many messages the thread had. */
async function startEchoAgent(): Promise<{ url: string; authorizations: string[]; close(): Promise<void> }> {
  const authorizations: string[] = [];
  const server = http.createServer((req, res) => {
    authorizations.push(String(req.headers.authorization));
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const input = JSON.parse(body) as { threadId: string; runId: string; messages: { role: string; content?: string }[] };
      const said = input.messages.findLast((m) => m.role === "user")?.content ?? "";
      const id = `agent-${input.runId}`;
      const frames = [
        { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId },
        { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: `The agent heard: ${said} ` },
        { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: `(${input.messages.length} messages)` },
        { type: "TEXT_MESSAGE_END", messageId: id },
        { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
      ];
      res.writeHead(200, { "content-type": "text/event-stream" }).end(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(""));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test("an admin registers an AG-UI agent, binds it to a user, and the user's chat is answered by it", async ({ page, browser }) => {
  const agent = await startEchoAgent();
  try {
    const member = { email: `agent-user-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "agent-user-password" };
    const name = `echo-${randomUUID().slice(0, 8)}`;
    const runnerId = `plugin:ag-ui/${name}/agent`;
    const signIn = new SignInPage(page);
    await signIn.goto("/admin");
    await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
    await expect(page).toHaveURL(/\/admin$/);
    await new AdminConsolePage(page).trpcMutation("users.create", { email: member.email, password: member.password, role: "user" });

    await page.getByTestId("admin-nav").getByRole("link", { name: "Runners" }).click();
    const form = page.getByTestId("agent-register-form");
    await form.getByLabel("Agent name").fill(name);
    await form.getByLabel("Agent URL").fill(agent.url);
    await form.getByLabel("Authorization header (optional)").fill("Bearer e2e-agent-token");
    await form.getByRole("button", { name: "Register agent" }).click();
    await expect(form.getByRole("status")).toContainText(runnerId);
    const endpoint = page.getByTestId("runner-endpoint").filter({ hasText: agent.url });
    await expect(endpoint).toContainText("AG-UI agent");
    await expect(endpoint.getByTestId("runner-item").filter({ hasText: runnerId })).toBeVisible();

    const bindings = page.getByTestId("bindings-panel");
    await bindings.getByLabel("Runner", { exact: true }).selectOption(runnerId);
    await bindings.getByLabel("For", { exact: true }).selectOption("user");
    await bindings.getByLabel("User email").fill(member.email);
    await bindings.getByRole("button", { name: "Create binding" }).click();
    await expect(bindings.getByTestId("binding-row").filter({ hasText: member.email })).toContainText(runnerId);

    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    const memberSignIn = new SignInPage(memberPage);
    await memberSignIn.goto("/chat");
    await memberSignIn.signIn(member.email, member.password);
    const chat = new ChatPage(memberPage);
    await expect(memberPage).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await chat.send("hello agent");
    await chat.waitForIdle();
    await expect(chat.lastAssistant()).toContainText("The agent heard: hello agent (1 messages)");
    // The second turn: the agent is sent the thread Dispatch keeps, its own first answer included.
    await chat.send("and again");
    await chat.waitForIdle();
    await expect(chat.lastAssistant()).toContainText("The agent heard: and again (3 messages)");
    // A reload shows the conversation from Dispatch's history.
    await memberPage.reload();
    await expect(chat.assistantMessages()).toHaveCount(2);
    await memberContext.close();
    expect(agent.authorizations).toEqual(["Bearer e2e-agent-token", "Bearer e2e-agent-token"]);
  } finally {
    await agent.close();
  }
});
