// CopilotKit 1.75 (runtime + headless core) with the @ag-ui/client its runtime pins (0.0.59),
// against Dispatch's POST /api/v1/ag-ui. The project lives in ./copilotkit-175 (npm ci there).
import { describeCopilotKit } from "./copilotkit-suite";
import { wiring } from "./copilotkit-175/kit";

describeCopilotKit("CopilotKit 1.75 + @ag-ui/client 0.0.59", wiring, { card: "tool-message" });
