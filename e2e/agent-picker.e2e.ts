import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { AdminConsolePage } from "./pages/admin-console-page";
import { expectNoSeriousAxeFindings } from "./pages/axe";
import { ChatPage } from "./pages/chat-page";
import { attachDesktopAndPhone } from "./pages/screens";
import { SignInPage } from "./pages/sign-in-page";

// A user with two framework agents bound to them picks the one that answers in the chat's
// composer (docs/agents.md#choosing-an-agent): the choice goes with the run, the default is the
// host's own pick, and a choice that is not theirs is refused. English and Chinese, axe clean.

test.describe.configure({ mode: "serial" });

type Agent = { url: string; close(): Promise<void> };

/** An AG-UI agent that answers every run with its name and the last user message. */
async function startNamedAgent(name: string): Promise<Agent> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const input = JSON.parse(body) as { threadId: string; runId: string; messages: { role: string; content?: unknown }[] };
      const said = input.messages.findLast((m) => m.role === "user")?.content;
      const id = `${name}-${input.runId}`;
      const frames = [
        { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId },
        { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: `${name} heard: ${typeof said === "string" ? said : "?"}` },
        { type: "TEXT_MESSAGE_END", messageId: id },
        { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
      ];
      res.writeHead(200, { "content-type": "text/event-stream" }).end(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(""));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const suffix = randomUUID().slice(0, 6);
const member = { email: `picker-${suffix}@e2e.dispatch`, password: "picker-user-password" };
const agents: Agent[] = [];
let foreignBinding = "";

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto("/admin");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/admin$/);
  const admin = new AdminConsolePage(page);
  await admin.trpcMutation("users.create", { email: member.email, password: member.password, role: "user" });
  // Two agents for the member, the planner bound last (the host's default: the newest binding).
  for (const [name, label] of [["writer", "Writer"], ["planner", "Trip planner"]] as const) {
    const agent = await startNamedAgent(label);
    agents.push(agent);
    await admin.trpcMutation("runners.registerAgent", { url: agent.url, name: `${name}-${suffix}`, label });
    await admin.trpcMutation("runners.bind", { runnerId: `plugin:ag-ui/${name}-${suffix}/agent`, email: member.email });
  }
  // A binding of someone else's: the member may not pick it.
  const someoneElse = `picker-other-${suffix}@e2e.dispatch`;
  await admin.trpcMutation("users.create", { email: someoneElse, password: member.password, role: "user" });
  const other = await admin.trpcMutation<{ id: string }>("runners.bind", { runnerId: `plugin:ag-ui/writer-${suffix}/agent`, email: someoneElse });
  foreignBinding = other.id;
  await context.close();
});

test.afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
});

async function signInMember(browser: Browser, locale: string): Promise<{ page: Page; chat: ChatPage; close(): Promise<void> }> {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto("/chat");
  await signIn.signIn(member.email, member.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  return { page, chat: new ChatPage(page), close: () => context.close() };
}

test("a user with two bound agents picks the one that answers; the default is the host's", async ({ browser }) => {
  const { page, chat, close } = await signInMember(browser, "en-US");
  const picker = page.getByTestId("agent-picker");
  const select = picker.getByRole("combobox", { name: "Agent" });
  await expect(select).toHaveValue(/.+/);
  await expect(select.locator("option")).toHaveText(["Trip planner", "Writer"]);

  await chat.send("plan a weekend");
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toHaveText("Trip planner heard: plan a weekend");

  await select.selectOption({ label: "Writer" });
  await chat.send("write a haiku");
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toHaveText("Writer heard: write a haiku");
  // The choice stays for the next message and after a reload.
  await page.reload();
  await expect(page.getByTestId("agent-picker").getByRole("combobox")).toHaveValue(await select.inputValue());
  await chat.send("and another");
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toHaveText("Writer heard: and another");

  await expectNoSeriousAxeFindings(page, "agent picker");
  await attachDesktopAndPhone(page, "agent-picker");
  await close();
});

test("an agent bound to someone else cannot be picked", async ({ browser }) => {
  const { page, chat, close } = await signInMember(browser, "en-US");
  const res = await page.request.post("/api/v1/agent/runs", {
    headers: { origin: new URL(page.url()).origin },
    data: { threadId: chat.threadId(), runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "hi" }], tools: [], context: [], forwardedProps: { agent: foreignBinding } },
  });
  expect(res.status()).toBe(400);
  expect(await res.text()).toContain("forwardedProps.agent");
  await close();
});

test("zh-CN: the agent picker is labelled in Chinese", async ({ browser }) => {
  const { page, chat, close } = await signInMember(browser, "zh-CN");
  const select = page.getByTestId("agent-picker").getByRole("combobox", { name: "智能体" });
  await expect(select).toBeVisible();
  await select.selectOption({ label: "Trip planner" });
  await chat.send("你好");
  await chat.waitForIdle();
  await expect(chat.lastAssistant()).toHaveText("Trip planner heard: 你好");
  await expectNoSeriousAxeFindings(page, "agent picker zh-CN");
  await attachDesktopAndPhone(page, "agent-picker-zh-CN");
  await close();
});
