// CopilotKit 1.75 wired to Dispatch, with an HttpAgent from @ag-ui/client 1.0.0 (the app's own
// dependency; the runtime and core keep their pinned 0.0.59 inside). See ../copilotkit-kit.ts
// for the chain and ../README.md for why it is wired so.
import { HttpAgent } from "@ag-ui/client";
import { CopilotKitCore } from "@copilotkit/core";
import { CopilotRuntime, createCopilotEndpoint, type AgentsConfig } from "@copilotkit/runtime/v2";
import { AGENT_ID, RUNTIME_PATH, type KitCore, type KitWiring } from "../copilotkit-kit";

export const wiring: KitWiring = {
  runtime: (url, headers) => {
    // The runtime's types are @ag-ui/client 0.0.59's, and 1.0.0's HttpAgent does not type-check
    // against them (1.0.0 adds a "file" content source): a TypeScript app needs this cast.
    const agents = { [AGENT_ID]: new HttpAgent({ url, headers }) } as unknown as AgentsConfig;
    return createCopilotEndpoint({ runtime: new CopilotRuntime({ agents }), basePath: RUNTIME_PATH });
  },
  core: (runtimeUrl) => new CopilotKitCore({ runtimeUrl }) as unknown as KitCore,
};
