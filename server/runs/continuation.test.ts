import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

// The call a Vercel invocation makes to continue a run it handed back: to its own deployment's
// cron route, with CRON_SECRET, and the protection-bypass secret when the project has one.

type Seen = { url: string; headers: http.IncomingHttpHeaders };
let server: http.Server;
let origin = "";
const seen: Seen[] = [];
let answer = 200;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    res.writeHead(answer, { "content-type": "application/json" }).end(JSON.stringify({ duty: "recover-runs", recoveredRuns: 1 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const warnings: unknown[][] = [];

async function continuationWith(env: Record<string, string | undefined>) {
  vi.resetModules();
  vi.doMock("../env", () => ({ env }));
  vi.doMock("../logger", () => ({ logger: { warn: (...args: unknown[]) => warnings.push(args) } }));
  return import("./continuation");
}

afterEach(() => {
  seen.length = 0;
  warnings.length = 0;
  answer = 200;
  vi.doUnmock("../env");
  vi.doUnmock("../logger");
});

const RUN = "7b0c2f64-1f7e-4c4e-9d6b-0b8a4f0e3a11";

describe("requestContinuation", () => {
  it("calls the deployment's recover-runs route for the run, with CRON_SECRET and the bypass secret", async () => {
    const { requestContinuation } = await continuationWith({ CRON_SECRET: "cron-s3cret", CONTINUE_RUNS_URL: origin, VERCEL_AUTOMATION_BYPASS_SECRET: "bypass-s3cret" });
    await requestContinuation(RUN);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe(`/api/cron/recover-runs?run=${RUN}`);
    expect(seen[0]!.headers.authorization).toBe("Bearer cron-s3cret");
    expect(seen[0]!.headers["x-vercel-protection-bypass"]).toBe("bypass-s3cret");
    expect(warnings).toHaveLength(0);
  });

  it("sends no bypass header without one, and says so when the call is refused (the cron continues the run)", async () => {
    answer = 401;
    const { requestContinuation } = await continuationWith({ CRON_SECRET: "cron-s3cret", CONTINUE_RUNS_URL: origin });
    await requestContinuation(RUN);
    expect(seen[0]!.headers["x-vercel-protection-bypass"]).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("refused");
    // No secret in what is logged.
    expect(JSON.stringify(warnings)).not.toContain("cron-s3cret");
  });

  it("calls nothing without CRON_SECRET or a URL, and never throws when the deployment cannot be reached", async () => {
    const { requestContinuation } = await continuationWith({ CRON_SECRET: undefined, VERCEL_URL: "dispatch-abc.vercel.app" });
    await requestContinuation(RUN);
    const none = await continuationWith({ CRON_SECRET: "cron-s3cret" });
    await none.requestContinuation(RUN);
    expect(seen).toHaveLength(0);
    expect(warnings).toHaveLength(2);
    // An unreachable deployment: the failure is logged, never thrown into the run's end.
    const unreachable = await continuationWith({ CRON_SECRET: "cron-s3cret", VERCEL_URL: "127.0.0.1:1" });
    await expect(unreachable.requestContinuation(RUN)).resolves.toBeUndefined();
    expect(warnings).toHaveLength(3);
  });
});
