// bad-manifests: /runners lists one valid manifest and several invalid ones (an unknown key,
// a bad id, a missing label). A host must skip the invalid ones with a warning and still
// offer the valid one, which answers /run like echo.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, delta, runCompleted } from "../../sdk/runner/results";
import { createRunnerHandler, hasBearer, sendJson, sendUnauthorized } from "../../sdk/runner/server";
import { chunksOf, inputText } from "./echo";
import { runIfMain, type StartOptions, type StartedRunner } from "./start";

export const BAD_MANIFESTS_VALID_ID = "plugin:dispatch-examples/bad-manifests/valid";
/** The ids (or what stands for one) of the manifests a host must skip. */
export const BAD_MANIFESTS_INVALID_IDS = [
  "plugin:dispatch-examples/bad-manifests/unknown-key",
  "bad-manifests-without-plugin-prefix",
  "plugin:dispatch-examples/bad-manifests/missing-label",
] as const;

const validRunner = defineRunner({
  manifest: {
    id: BAD_MANIFESTS_VALID_ID,
    name: "valid",
    label: { en_US: "The valid one" },
    capabilities: { streaming: true },
    permissions: {},
    context: {},
  },
  async *run(ctx) {
    const text = inputText(ctx);
    for (const chunk of chunksOf(text)) yield delta(chunk);
    yield completed(text);
    yield runCompleted();
  },
});

const base = { capabilities: {}, permissions: {}, context: {}, label: { en_US: "Invalid" } };
const invalidManifests = [
  { ...base, id: BAD_MANIFESTS_INVALID_IDS[0], name: "unknown-key", surprise: true },
  { ...base, id: BAD_MANIFESTS_INVALID_IDS[1], name: "bad-id" },
  { capabilities: {}, permissions: {}, context: {}, id: BAD_MANIFESTS_INVALID_IDS[2], name: "missing-label" },
];

export async function startBadManifestsRunner(opts: StartOptions): Promise<StartedRunner> {
  const handler = createRunnerHandler({ secret: opts.secret, runners: [validRunner] });
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && new URL(req.url ?? "/", "http://runner").pathname === "/runners") {
      if (!hasBearer(req, opts.secret)) return sendUnauthorized(res);
      return sendJson(res, 200, { runners: [validRunner.manifest, ...invalidManifests] });
    }
    void handler.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    async close() {
      await handler.shutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

runIfMain(import.meta.url, startBadManifestsRunner);
