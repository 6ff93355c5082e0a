import "server-only";
import { z } from "zod";
import { PROJECT_CLI_ACTIONS, type ActionDefinition } from "./actions";
import type { ToolContext } from "./context";
import { ToolError } from "./errors";
import { describeInputSchema } from "./input-schema";
import type { MethodDefinition } from "./module";

// The one place an action is chosen. Order matters: the whitelist first, then the run's
// module allow-list (showing a tool never grants running it), then the method's strict
// schema; only input that passes all three reaches a handler.

export const toolErrorSchema = z
  .looseObject({
    code: z.string().min(1),
    message: z.string().min(1),
    retryable: z.boolean().optional(),
  })
  .describe("A structured, correctable tool error; codes are stable, extra keys carry details");

export const cliOutputSchema = z.discriminatedUnion("ok", [
  z.strictObject({ ok: z.literal(true), module: z.string(), method: z.string(), data: z.unknown() }),
  z.strictObject({ ok: z.literal(false), module: z.string().nullable(), method: z.string().nullable(), error: toolErrorSchema }),
]);

export type CliOutput = z.infer<typeof cliOutputSchema>;

export type DispatchRequest = {
  ctx: ToolContext;
  module: string;
  method: string;
  input: unknown;
  allowedModules: readonly string[];
};

/**
 * A request that passed every check but the handler's, or the failure it met. A handler's
 * ToolError is an answer (`ok: false`), not a throw; anything else it throws propagates.
 */
export type Prepared =
  | { failed: CliOutput }
  | { kind: MethodDefinition["kind"]; action: string; input: unknown; run(ctx: ToolContext): Promise<CliOutput> };

export type Router = {
  /** Everything before the handler (the CLI does it while its database connection opens). */
  prepare(request: Omit<DispatchRequest, "ctx">): Prepared;
  dispatch(request: DispatchRequest): Promise<CliOutput>;
};

export function createRouter(actions: readonly ActionDefinition[] = PROJECT_CLI_ACTIONS): Router {
  const table = new Map(actions.map((a) => [`${a.module}.${a.method}`, a]));

  function prepare({ module, method, input, allowedModules }: Omit<DispatchRequest, "ctx">): Prepared {
    const fail = (error: ToolError): CliOutput => ({ ok: false, module, method, error: error.toBody() });
    const action = table.get(`${module}.${method}`);
    if (!action) {
      const available = actions.filter((a) => allowedModules.includes(a.module)).map((a) => `${a.module}.${a.method}`);
      return { failed: fail(new ToolError("UNKNOWN_ACTION", `project_cli has no action ${module}.${method}`, { details: { available } })) };
    }
    if (!allowedModules.includes(module)) {
      return { failed: fail(new ToolError("MODULE_NOT_ALLOWED", `The ${module} module is not enabled for this run`, { details: { allowed_modules: [...allowedModules] } })) };
    }
    const parsed = action.input.safeParse(input);
    if (!parsed.success) {
      return {
        failed: fail(
          new ToolError("INVALID_ACTION_INPUT", `${module}.${method} input does not match method schema`, {
            details: { module, method, input_schema: describeInputSchema(action.input), issues: compactIssues(parsed.error) },
          }),
        ),
      };
    }
    return {
      kind: action.kind,
      action: `${module}.${method}`,
      input: parsed.data,
      async run(ctx) {
        try {
          return { ok: true, module, method, data: await action.handler(ctx, parsed.data) };
        } catch (err) {
          if (err instanceof ToolError) return fail(err);
          throw err;
        }
      },
    };
  }

  return {
    prepare,
    async dispatch({ ctx, ...request }) {
      const prepared = prepare(request);
      return "failed" in prepared ? prepared.failed : prepared.run(ctx);
    },
  };
}

export const projectCliRouter: Router = createRouter();

type Issue = { path: string; message: string };

// A union's own message says which shapes exist; the issues of the closest shape say what
// to fix in it, so both go back to the model.
function compactIssues(error: z.ZodError): Issue[] {
  const flatten = (issues: z.core.$ZodIssue[], prefix: PropertyKey[]): Issue[] =>
    issues.flatMap((issue) => {
      const path = [...prefix, ...issue.path];
      const own = { path: path.map(String).join("."), message: issue.message };
      if (issue.code !== "invalid_union" || issue.errors.length === 0) return [own];
      const closest = issue.errors.reduce((best, next) => (distance(next) < distance(best) ? next : best));
      return [own, ...flatten(closest, path)];
    });
  return flatten(error.issues, []).slice(0, 20);
}

// Unknown keys mean the input has another shape altogether, so they weigh most.
function distance(issues: z.core.$ZodIssue[]): number {
  return issues.reduce((sum, issue) => sum + (issue.code === "unrecognized_keys" ? 100 : 1), 0);
}
