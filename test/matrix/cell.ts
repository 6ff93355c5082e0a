import { expect } from "vitest";
import { fact } from "@/server/approvals/test-support";
import type { Cell } from "./axes";
import { agUiDoor, seedDoor, webDoor, type Door } from "./ag-ui-doors";
import { agentApiDoor } from "./agent-api-door";
import type { AgUiEvent, RunRecord } from "./delivery";
import { expectHistoryAsStreamed, expectNothingLeaked, expectStreamsValid, expectUsageRecorded } from "./invariants";
import { participantFor, uploadAttachment, type Participant, type Runners } from "./participants";
import { turnFor, WEATHER_ANSWER, WEATHER_TOOL, type Turn } from "./turns";
import { modelCalls } from "@/test/clients/dispatch";

// One cell, start to end: its participant, its turn (and the run that continues it after an
// approval or a client tool's answer), then every invariant.

const DOORS: Record<Cell["door"], (p: Participant, delivery: Cell["delivery"]) => Door> = {
  seed: seedDoor,
  web: webDoor,
  "ag-ui": agUiDoor,
  "agent-api": agentApiDoor,
};

const outcomeOf = (events: AgUiEvent[]) => (events.findLast((e) => e.type === "RUN_FINISHED")?.outcome as { type: string } | undefined)?.type;
const ofType = (events: AgUiEvent[], type: string) => events.filter((e) => e.type === type);

/** The cell's tool was really used, as the logs of its runs tell. */
async function expectToolUsed(cell: Cell, p: Participant, turn: Turn, [first, second]: AgUiEvent[][]): Promise<void> {
  switch (cell.tools) {
    case "none":
      expect(ofType(first!, "TOOL_CALL_START")).toEqual([]);
      expect(ofType(first!, "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(0);
      break;
    case "cli-read":
      expect(ofType(first!, "TOOL_CALL_RESULT")).toHaveLength(1);
      break;
    case "cli-write-approval":
      expect(outcomeOf(first!)).toBe("interrupt");
      expect(ofType(second!, "TOOL_CALL_RESULT").length).toBeGreaterThan(0);
      expect(await fact(p.userId, turn.factKey)).toBe("yes");
      break;
    case "frontend":
      expect(ofType(first!, "TOOL_CALL_START").map((e) => e.toolCallName)).toEqual([WEATHER_TOOL.name]);
      expect(ofType(first!, "TOOL_CALL_RESULT")).toEqual([]);
      expect(ofType(second!, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toContain(WEATHER_ANSWER);
      break;
  }
}

export async function runCell(cell: Cell, runners: Runners, seed: number): Promise<void> {
  const p = await participantFor(cell, runners);
  const turn = turnFor(cell, cell.input === "text" ? null : await uploadAttachment(p, cell.input, seed));
  const door = DOORS[cell.door](p, cell.delivery);
  const runs: RunRecord[] = [await door.start(turn)];
  if (cell.tools === "cli-write-approval") runs.push(await door.approve(runs[0]!));
  if (cell.tools === "frontend") runs.push(await door.answerTool(runs[0]!, turn));

  const logs = await expectStreamsValid(cell, door, runs);
  await expectToolUsed(cell, p, turn, logs);
  // The built-in agent's model was given the document's text (an external runner gets its reference).
  if (cell.executor === "builtin" && turn.attachment?.text) {
    const [call] = await modelCalls(turn.word);
    expect(JSON.stringify(call?.body.messages)).toContain(turn.attachment.text);
  }
  const history = await expectHistoryAsStreamed(p, door, turn, logs, cell.tools === "frontend" ? WEATHER_ANSWER : null);
  await expectUsageRecorded(p, cell, runs);
  expectNothingLeaked(p, runs, history);
}
