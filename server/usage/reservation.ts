import { env } from "../env";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import type { GenerationParams } from "../kernel/runs";

// A run's token reservation: what it is expected to spend, held against its daily token budgets
// from its accept until its end (dispatch_run_limits), so runs accepted together cannot each
// see the whole of what is left. An estimate, made without a tokenizer on the hot path:
//   the request's text (its messages, tool definitions and context) at four characters a token,
//   the usual rate of English text with OpenAI-style tokenizers;
//   plus one model call's output limit: the request's max_tokens, else BUDGET_RESERVE_OUTPUT_TOKENS.
// The thread's stored history and the system prompt are not counted: reading them would cost the
// accept a query. At its end a run's actual usage replaces its reservation.

const CHARS_PER_TOKEN = 4;

function messageChars(message: RunAgentInput["messages"][number]): number {
  let chars = 0;
  if (typeof message.content === "string") chars += message.content.length;
  else if (Array.isArray(message.content)) for (const part of message.content) if (part.type === "text") chars += part.text.length;
  if (message.role === "assistant") for (const call of message.toolCalls ?? []) chars += call.function.name.length + call.function.arguments.length;
  return chars;
}

/** The tokens a run reserves of its daily token budgets when it is accepted. */
export function runReservation(input: RunAgentInput, generation: GenerationParams | undefined): number {
  let chars = 0;
  for (const message of input.messages) chars += messageChars(message);
  if (input.tools.length > 0) chars += JSON.stringify(input.tools).length;
  for (const c of input.context) chars += c.description.length + c.value.length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + (generation?.maxTokens ?? env.BUDGET_RESERVE_OUTPUT_TOKENS);
}
