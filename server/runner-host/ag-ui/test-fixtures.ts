// AG-UI agents scripted frame by frame for the tests of what Dispatch makes of an agent's
// stream (a framework's real agent is in test/framework-agents): one HTTP server for the test
// file, started before its tests and closed after them, each agent at a path of its own.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { createTestUser } from "@/test/helpers";
import { bindRunner, registerAgent } from "../service";

/** An event (sent as one `data:` frame), or raw text sent as it is (a broken stream). */
export type ScriptedFrame = Record<string, unknown> | string;

/** What the agent answers: `hold` keeps the response open after the frames (an agent still working). */
export type ScriptedAnswer = { status?: number; contentType?: string; frames: ScriptedFrame[]; hold?: boolean };

export type Script<Input> = (input: Input) => ScriptedAnswer;

/** Call at the top of a test file; `Input` is the part of RunAgentInput its scripts read. */
export function scriptedAgents<Input>(name: string) {
  const scripts = new Map<string, { script: Script<Input>; received: Input[] }>();
  let server: http.Server;
  let origin = "";

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const agent = scripts.get(req.url ?? "")!;
        const input = JSON.parse(body) as Input;
        agent.received.push(input);
        const { status = 200, contentType = "text/event-stream", frames, hold } = agent.script(input);
        res.writeHead(status, { "content-type": contentType });
        const text = frames.map((f) => (typeof f === "string" ? f : `data: ${JSON.stringify(f)}\n\n`)).join("");
        if (hold) res.write(text);
        else res.end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  return {
    /** A user whose runs go to an agent that answers with `script`; what the agent received. */
    async userWithAgent(script: Script<Input>) {
      const path = `/${randomUUID()}`;
      const received: Input[] = [];
      scripts.set(path, { script, received });
      const { runnerId } = await registerAgent({ url: `${origin}${path}`, name: `${name}-${randomUUID().slice(0, 8)}` });
      const user = await createTestUser();
      await bindRunner({ runnerId, email: user.email });
      return { user, received };
    },
  };
}
