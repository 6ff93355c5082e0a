import "server-only";
import type { JSONSchema7 } from "ai";
import { z } from "zod";
import { PROJECT_CLI_TOOL_NAME, projectCliArgsSchema, projectCliToolDescription, runProjectCli } from "../tools/project-cli/tool";
import type { ProjectCliBinding } from "./tools";

/** The real project_cli, as the agent loop calls it. */
export const projectCliBinding: ProjectCliBinding = {
  name: PROJECT_CLI_TOOL_NAME,
  description: projectCliToolDescription,
  parameters: z.toJSONSchema(projectCliArgsSchema) as JSONSchema7,
  run: (request) => runProjectCli(request),
};
