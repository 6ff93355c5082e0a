// CopilotKit 1.75 wired to Dispatch, with the @ag-ui/client the runtime pins (0.0.59) for its
// HttpAgent. See ../copilotkit-kit.ts for the chain and ../README.md for why it is wired so.
import { HttpAgent } from "@ag-ui/client";
import { CopilotKitCore } from "@copilotkit/core";
import { CopilotRuntime, createCopilotEndpoint } from "@copilotkit/runtime/v2";
import { AGENT_ID, RUNTIME_PATH, type KitCore, type KitWiring } from "../copilotkit-kit";

export const wiring: KitWiring = {
  runtime: (url, headers) =>
    createCopilotEndpoint({ runtime: new CopilotRuntime({ agents: { [AGENT_ID]: new HttpAgent({ url, headers }) } }), basePath: RUNTIME_PATH }),
  core: (runtimeUrl) => new CopilotKitCore({ runtimeUrl }) as unknown as KitCore,
};
