// progress-notes: posts a note in the conversation as soon as it starts ("Working on …"), answers
// with the run's model through the host (or echoes the text when no model is granted), then turns
// the note into a summary of what it did. The note is sent with a host call (its id comes back at
// once) and edited with a result the host performs in stream order: both ways of sdk/runner/platform.ts.
// `RUNNER_SECRET=s HOST_URL=http://127.0.0.1:3000 tsx sdk/runner/examples/progress-notes.ts`
import { runIfMain, startRunners, type StartOptions } from "../../../examples/runners/start";
import { defineRunner } from "../define-runner";
import { messageEdited, sendMessage } from "../platform";
import { completed, runCompleted } from "../results";

export const PROGRESS_NOTES_RUNNER_ID = "plugin:dispatch-examples/progress-notes/default";

export const progressNote = (text: string) => `Working on “${text}”…`;
export const doneNote = (text: string) => `Done: answered “${text}”.`;

export const progressNotesRunner = defineRunner({
  manifest: {
    id: PROGRESS_NOTES_RUNNER_ID,
    name: "default",
    label: { en_US: "Progress notes" },
    description: { en_US: "Posts a progress note, answers, then edits the note into a summary." },
    capabilities: { platform_api: true },
    permissions: { models: ["invoke"], platform_api: ["message.send", "message.edit"] },
    context: { bootstrap: "none" },
  },
  async *run(ctx, { host }) {
    const text = ctx.input.text ?? "";
    const note = await sendMessage(host, progressNote(text));
    const model = ctx.resources.models.find((m) => m.selected) ?? ctx.resources.models[0];
    const answer = model ? (await host.models.invoke({ model_id: model.model_id, messages: [{ role: "user", content: text }] })).message.content : text;
    yield completed(answer || text);
    yield messageEdited(note.message_id, doneNote(text));
    yield runCompleted();
  },
});

export const startProgressNotesRunner = (opts: StartOptions) => startRunners({ ...opts, runners: [progressNotesRunner] });

runIfMain(import.meta.url, startProgressNotesRunner);
