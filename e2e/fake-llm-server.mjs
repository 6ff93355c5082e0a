// The tests' fake OpenAI-compatible model (test/fake-llm.ts) as a process of its own: the e2e
// server offers it as a second model ("fake-reasoner"), which thinks when a message says so.
import { startFakeLlm } from "../test/fake-llm.ts";

const llm = await startFakeLlm({ port: Number(process.env.FAKE_LLM_PORT) });
console.log(`fake LLM listening on ${llm.baseUrl}`);
