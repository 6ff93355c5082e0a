import "server-only";
import { z } from "zod";
import { uiSchemaDocumentSchema, type UiSchema } from "../ui-schema/schema";

// What a server-side tool hands back to the loop: the text the model reads, the card the
// client renders, and the full ToolAgentOutput that is persisted with the tool message.
// Values are checked but passed through untouched, so the card streamed is the card stored.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const toolOutcomeSchema = z.object({
  toolResponseText: z.string(),
  uiSchema: z.custom<UiSchema | null>((v) => v === null || uiSchemaDocumentSchema.safeParse(v).success, "not a UiSchema document"),
  output: z.custom<Record<string, unknown> | null>((v) => v === null || isRecord(v), "not a ToolAgentOutput object"),
});

export type ToolOutcome = z.infer<typeof toolOutcomeSchema>;

/** The model-facing text of a failure the runtime itself reports, in the tool protocol's failure shape. */
export function toolFailureText(code: string, message: string): string {
  return JSON.stringify({ status: "failure", error: { code, message } });
}
