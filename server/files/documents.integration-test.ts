import { GetObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { elfBytes, exeBytes, pdfBytes } from "@/test/documents";
import { startExtraServer, type ExtraServer, stopExtraServer } from "@/test/extra-server";
import { bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { s3ClientOf, startS3Server, type TestS3Server } from "@/test/s3-server";
import { waitFor } from "@/test/wait";
import { getPool } from "@/server/db";

// Documents end to end over real HTTP: a production server on real S3-compatible storage (which
// checks signatures), the test's scripted OpenAI-compatible model as the default model (no file
// parts) and once more as a model that declares file support (LLM_MODELS `files: true`). What
// the model received is read back from the scripted model's own log of calls.

let s3: TestS3Server;
let server: ExtraServer;
let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
const FILES_MODEL = "files-model";
const PDF_LINE = "Quarterly revenue (Q3) rose 12 percent";
const CSV = "region,amount\nnorth,120\nsouth,80\n";

beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  s3 = await startS3Server({ bucket: "agent-files-documents" });
  server = await startExtraServer({
    ...s3.env,
    LLM_MODELS: JSON.stringify([{ id: FILES_MODEL, base_url: inject("llmBaseUrl"), api_key: inject("llmApiKey"), files: true }]),
  });
}, 90_000);

afterAll(async () => {
  await stopExtraServer(server);
  await s3?.stop();
});

type Uploaded = { bucket: string; path: string; mime_type: string; file_name?: string; size: number; url: string };

function upload(key: string, data: Uint8Array, type: string, name: string): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([Buffer.from(data)], { type }), name);
  return fetch(`${server.url}/api/v1/agent/attachments`, { method: "POST", headers: bearer(key), body: form });
}

async function uploaded(key: string, data: Uint8Array, type: string, name: string): Promise<Uploaded> {
  const res = await upload(key, data, type, name);
  expect(res.status).toBe(201);
  return (await res.json()) as Uploaded;
}

const documentPart = (file: { url: string; mime_type: string }) => ({ type: "document", source: { type: "url", value: file.url, mimeType: file.mime_type } });

function startRun(key: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/v1/agent/runs`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(body) });
}

async function runToEnd(key: string, body: ReturnType<typeof runInput>): Promise<void> {
  const res = await startRun(key, body);
  expect(res.status).toBe(202);
  let status = "";
  await waitFor(async () => {
    const run = (await (await fetch(`${server.url}/api/v1/agent/runs/${encodeURIComponent(body.runId)}`, { headers: bearer(key) })).json()) as { status: string };
    status = run.status;
    return ["completed", "failed", "cancelled"].includes(status);
  }, 20_000);
  expect(status).toBe("completed");
}

type ModelPart = { type: string; text?: string; file?: { filename?: string; file_data?: string } };

/** The user message content the scripted model received in the call whose user text contains `marker`. */
async function modelSaw(marker: string): Promise<ModelPart[]> {
  const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(marker)}`)).json()) as {
    body: { model: string; messages: { role: string; content: string | ModelPart[] }[] };
  }[];
  expect(calls.length).toBeGreaterThan(0);
  const user = calls[0]!.body.messages.findLast((m) => m.role === "user")!;
  return typeof user.content === "string" ? [{ type: "text", text: user.content }] : user.content;
}

describe("document attachments", () => {
  it("refuses a renamed executable, naming what it really is, and stores nothing", async () => {
    const elf = await upload(alice.apiKey, elfBytes(), "application/pdf", "report.pdf");
    expect(elf.status).toBe(415);
    expect(((await elf.json()) as { error: { message: string } }).error.message).toBe(
      "The file's declared type application/pdf does not match its content (application/x-elf)",
    );
    const exe = await upload(alice.apiKey, exeBytes(), "text/csv", "sales.csv");
    expect(exe.status).toBe(415);
    expect(((await exe.json()) as { error: { message: string } }).error.message).toBe(
      "The file's declared type text/csv does not match its content (application/x-msdownload)",
    );
    // Named .pdf but declared as nothing: the name is only a claim, and the bytes refute it.
    expect((await upload(alice.apiKey, elfBytes(), "application/octet-stream", "innocent.pdf")).status).toBe(415);
    expect((await upload(alice.apiKey, Buffer.from("{not json"), "application/json", "data.json")).status).toBe(415);
    expect((await upload(alice.apiKey, Buffer.from("x"), "application/zip", "a.zip")).status).toBe(415);
  });

  it("refuses, at its first use, a presigned upload whose bytes are an executable", async () => {
    const res = await fetch(`${server.url}/api/v1/agent/attachments/presign`, {
      method: "POST",
      headers: { ...bearer(alice.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ mime_type: "application/pdf", size: elfBytes().byteLength, file_name: "report.pdf" }),
    });
    expect(res.status).toBe(201);
    const presigned = (await res.json()) as Uploaded & { upload: { url: string; headers: Record<string, string> } };
    expect(presigned).toMatchObject({ mime_type: "application/pdf", file_name: "report.pdf" });
    // Storage holds the signed URL to its type and length, not to the content.
    expect((await fetch(presigned.upload.url, { method: "PUT", headers: presigned.upload.headers, body: Buffer.from(elfBytes()) })).status).toBe(200);
    const run = await startRun(alice.apiKey, runInput({ messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "read it" }, documentPart(presigned)] }] }));
    expect(run.status).toBe(415);
    expect(((await run.json()) as { error: { message: string } }).error.message).toContain("(application/x-elf)");
  });

  it("gives a PDF and a CSV to a model without file parts as their text, with their names", async () => {
    const pdf = await uploaded(alice.apiKey, pdfBytes(PDF_LINE), "application/pdf", "report.pdf");
    const csv = await uploaded(alice.apiKey, new TextEncoder().encode(CSV), "text/csv", "sales.csv");
    expect(pdf).toMatchObject({ mime_type: "application/pdf", file_name: "report.pdf", path: expect.stringMatching(/\.pdf$/) });
    expect(csv).toMatchObject({ mime_type: "text/csv", file_name: "sales.csv", size: CSV.length });

    const marker = `text-${randomUUID()}`;
    const body = runInput({ messages: [{ id: "u1", role: "user", content: [{ type: "text", text: `${marker} summarise` }, documentPart(pdf), documentPart(csv)] }] });
    await runToEnd(alice.apiKey, body);
    const parts = await modelSaw(marker);
    expect(parts.map((p) => p.type)).toEqual(["text", "text", "text"]);
    expect(parts[1]!.text).toBe(`File: report.pdf\n${PDF_LINE}`);
    expect(parts[2]!.text).toBe(`File: sales.csv\n${CSV}`);
    // The run record keeps where the documents are, never the signatures that grant access.
    const stored = await getPool().query<{ input: string }>(`select input::text as input from runs where run_id = $1 and user_id = $2`, [body.runId, alice.id]);
    expect(stored.rows[0]!.input).toContain(pdf.path);
    expect(stored.rows[0]!.input).not.toContain("X-Amz-Signature");
    // The PDF's text was extracted once and kept with it.
    const { rows } = await getPool().query<{ text: string }>(`select text from attachments where path = $1`, [pdf.path]);
    expect(rows[0]!.text).toBe(PDF_LINE);
  });

  it("takes documents on the Agent API as file content", async () => {
    const pdf = await uploaded(alice.apiKey, pdfBytes(PDF_LINE), "application/pdf", "report.pdf");
    const marker = `agent-api-${randomUUID()}`;
    const res = await fetch(`${server.url}/api/v1/agent/process`, {
      method: "POST",
      headers: { ...bearer(alice.apiKey), "content-type": "application/json" },
      body: JSON.stringify({
        stream: false,
        input: [{ role: "user", content: [{ type: "text", text: `${marker} read` }, { type: "file", file_url: pdf.url, mime_type: "application/pdf" }] }],
      }),
    });
    expect(res.status).toBe(200);
    const parts = await modelSaw(marker);
    expect(parts.at(-1)).toEqual({ type: "text", text: `File: report.pdf\n${PDF_LINE}` });
  });

  it("gives them to a model that declares file support as file parts", async () => {
    const data = pdfBytes(PDF_LINE);
    const pdf = await uploaded(alice.apiKey, data, "application/pdf", "report.pdf");
    const csv = await uploaded(alice.apiKey, new TextEncoder().encode(CSV), "text/csv", "sales.csv");
    const marker = `files-${randomUUID()}`;
    const body = runInput({
      messages: [{ id: "u1", role: "user", content: [{ type: "text", text: `${marker} summarise` }, documentPart(pdf), documentPart(csv)] }],
      forwardedProps: { model: FILES_MODEL },
    });
    await runToEnd(alice.apiKey, body);
    const parts = await modelSaw(marker);
    const file = parts.find((p) => p.type === "file");
    expect(file?.file?.filename).toBe("report.pdf");
    expect(Buffer.from(file!.file!.file_data!.replace("data:application/pdf;base64,", ""), "base64")).toEqual(Buffer.from(data));
    // The OpenAI-compatible wire has no file part for text: the SDK's provider sends a CSV file
    // part as its text, after the part that names it.
    const texts = parts.filter((p) => p.type === "text").map((p) => p.text);
    expect(texts).toEqual([`${marker} summarise`, "File: report.pdf", "File: sales.csv", CSV]);
  });

  it("keeps documents in history with their names and sizes, signed afresh, for their owner only", async () => {
    const csv = await uploaded(alice.apiKey, new TextEncoder().encode(CSV), "text/csv", "sales.csv");
    // The run names the document by an older (still valid) URL, so the one history signs is visibly newer.
    const client = s3ClientOf(s3);
    const older = await getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: csv.path }), { expiresIn: 900, signingDate: new Date(Date.now() - 300_000) });
    const body = runInput({ messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "keep this" }, documentPart({ ...csv, url: older })] }] });
    await runToEnd(alice.apiKey, body);
    const history = (await (await fetch(`${server.url}/api/v1/agent/history?threadId=${body.threadId}`, { headers: bearer(alice.apiKey) })).json()) as {
      messages: { role: string; attachments?: (Uploaded & { url: string })[] }[];
    };
    const attachments = history.messages.find((m) => m.role === "user")!.attachments!;
    expect(attachments).toEqual([{ bucket: csv.bucket, path: csv.path, mime_type: "text/csv", file_name: "sales.csv", size: CSV.length, url: expect.any(String) }]);
    const signedAt = (url: string) => Number(new URL(url).searchParams.get("X-Amz-Date")!.replace(/\D/g, ""));
    expect(signedAt(attachments[0]!.url)).toBeGreaterThan(signedAt(older));
    const download = await fetch(attachments[0]!.url);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(CSV);

    // Someone else cannot run with Alice's document.
    const foreign = await startRun(bob.apiKey, runInput({ messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "mine?" }, documentPart(csv)] }] }));
    expect(foreign.status).toBe(404);
  });
});
