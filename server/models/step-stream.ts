import "server-only";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";

// One model step as the agent's loop consumes it: opening it sends the request (and is what
// a retry repeats); reading it pushes the provider's stream parts to the loop as they come.

export type StepStream = {
  /** Pushes every part of the step, in order; resolves when the model's answer has ended. */
  read(emit: (part: LanguageModelV4StreamPart) => void): Promise<void>;
  /** Stops reading and ends the request (a loop that leaves early). */
  cancel(): void;
};

export type StepStreamer = (options: LanguageModelV4CallOptions) => Promise<StepStream>;

/** Any AI SDK language model, through its own `doStream`. */
export function sdkStepStreamer(model: LanguageModelV4): StepStreamer {
  return async (options) => {
    const { stream } = await model.doStream(options);
    const reader = stream.getReader();
    return {
      async read(emit) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          emit(value);
        }
      },
      cancel: () => void reader.cancel().catch(() => {}),
    };
  };
}
