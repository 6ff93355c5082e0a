// The relay phase: an AG-UI agent's events read directly and through Dispatch (bench/agent-relay.ts).
// Each path's medians at two answer sizes give its cost per event (the slope between them) apart
// from its cost per run (what the slope leaves at zero events).
import { percentile } from "./load";
import { n } from "./figures";
import { runScript } from "./processes";
import { dispatchEnv, type DispatchEnv, type DispatchServer } from "./servers";
import type { RelaySample } from "./agent-relay";

/** Per event: the slope between the two sizes' medians; per run: the fixed part. */
type Path = { msPerEvent: number; msPerRun: number; firstEventMs: number; dispatchCpuMsPerEvent: number; dispatchCpuMsPerRun: number; benchCpuMsPerEvent: number };
export type RelayFigures = { sizes: [number, number]; runs: number; direct: Path; dispatch: Path };

// The fake agent listens on loopback: allowed here as a developer's RUNNER_ALLOWED_HOSTS would.
export const RELAY_ENV = { RUNNER_ALLOWED_HOSTS: "127.0.0.1" };

const median = (samples: RelaySample[], key: keyof RelaySample) => percentile([...samples.map((s) => s[key])].sort((a, b) => a - b), 50);

function pathFigures(sizes: [number, number], bySize: Record<number, RelaySample[]>): Path {
  const [small, large] = sizes;
  const fit = (key: keyof RelaySample) => {
    const a = median(bySize[small]!, key);
    const perEvent = (median(bySize[large]!, key) - a) / (large - small);
    return { perEvent, perRun: a - perEvent * small };
  };
  const ms = fit("totalMs");
  const cpu = fit("dispatchCpuMs");
  return { msPerEvent: ms.perEvent, msPerRun: ms.perRun, firstEventMs: median(bySize[large]!, "firstEventMs"), dispatchCpuMsPerEvent: cpu.perEvent, dispatchCpuMsPerRun: cpu.perRun, benchCpuMsPerEvent: fit("benchCpuMs").perEvent };
}

export async function relayPhase(e: DispatchEnv, server: DispatchServer, opts: { runs: number; sizes: [number, number] }): Promise<RelayFigures> {
  const args = ["--url", server.url, "--roots", server.tree.roots.join(","), "--port", String(server.port), "--runs", String(opts.runs), "--events", opts.sizes.join(",")];
  const out = await runScript("agent-relay.ts", args, { env: dispatchEnv(e, RELAY_ENV), conditions: ["react-server"], timeoutMs: 300_000 });
  const result = JSON.parse(out.trim().split("\n").at(-1)!) as { direct: Record<number, RelaySample[]>; dispatch: Record<number, RelaySample[]> };
  return { sizes: opts.sizes, runs: opts.runs, direct: pathFigures(opts.sizes, result.direct), dispatch: pathFigures(opts.sizes, result.dispatch) };
}

export function relayTable(r: RelayFigures): string[] {
  const row = (path: string, p: Path) =>
    `| ${path} | ${n(p.msPerEvent, 3)} | ${n(p.msPerRun, 1)} | ${n(p.firstEventMs, 1)} | ${n(p.dispatchCpuMsPerEvent, 3)} | ${n(p.dispatchCpuMsPerRun, 1)} | ${n(p.benchCpuMsPerEvent, 3)} |`;
  const d = r.dispatch;
  const o = r.direct;
  return [
    `### An AG-UI agent relayed: answers of ${r.sizes[0]} and ${r.sizes[1]} content events, directly and through Dispatch (${r.runs} runs each)`,
    "",
    "A fake AG-UI agent (its own process, on loopback) writes each event as soon as the last is written. Per event: the slope between the two sizes' medians; per run: what is left at zero events. First content event: at the larger size. Dispatch CPU: its server and PostgreSQL; client CPU: the reading client's own.",
    "",
    "| path | ms/event | ms/run | first content event ms | Dispatch CPU ms/event | Dispatch CPU ms/run | client CPU ms/event |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    row("direct (POST to the agent)", o),
    row("through Dispatch (POST /api/v1/ag-ui)", d),
    `| what the relay adds | ${n(d.msPerEvent - o.msPerEvent, 3)} | ${n(d.msPerRun - o.msPerRun, 1)} | ${n(d.firstEventMs - o.firstEventMs, 1)} | ${n(d.dispatchCpuMsPerEvent, 3)} | ${n(d.dispatchCpuMsPerRun, 1)} | |`,
  ];
}
