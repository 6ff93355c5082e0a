// The CopilotKit v2 packages 1.54.1 (@copilotkitnext/*, AG-UI client 0.0.48) wired to Dispatch.
// See ../copilotkit-kit.ts for the chain and ../README.md for why it is wired so.
import { HttpAgent } from "@ag-ui/client";
import { CopilotKitCore } from "@copilotkitnext/core";
import { CopilotRuntime, createCopilotEndpoint } from "@copilotkitnext/runtime";
import { AGENT_ID, RUNTIME_PATH, type KitCore, type KitWiring } from "../copilotkit-kit";

export const wiring: KitWiring = {
  runtime: (url, headers) =>
    createCopilotEndpoint({ runtime: new CopilotRuntime({ agents: { [AGENT_ID]: new HttpAgent({ url, headers }) } }), basePath: RUNTIME_PATH }),
  core: (runtimeUrl) => new CopilotKitCore({ runtimeUrl }) as unknown as KitCore,
};
