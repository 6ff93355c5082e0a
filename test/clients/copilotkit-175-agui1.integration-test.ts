// CopilotKit 1.75 (runtime + headless core) whose agent is an HttpAgent from @ag-ui/client 1.0.0,
// against Dispatch's POST /api/v1/ag-ui. The project lives in ./copilotkit-175-agui1 (npm ci there).
import { describeCopilotKit } from "./copilotkit-suite";
import { wiring } from "./copilotkit-175-agui1/kit";

describeCopilotKit("CopilotKit 1.75 + HttpAgent from @ag-ui/client 1.0.0", wiring, { card: "tool-message" });
