import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { pngBytes, textBytes } from "@/test/images";
import { AgentResponseSchema } from "./response";

// image_url from anywhere, over real HTTP against the production server. The "foreign" image
// server listens on 127.0.0.1, which the test server's operator allow-list
// (IMAGE_URL_ALLOWED_HOSTS=127.0.0.1, test/global-setup.ts) lets it fetch; the same server named
// "localhost" is a name that resolves to a loopback address, and is refused like any other.

let alice: Awaited<ReturnType<typeof createTestUser>>;
let images: http.Server;
let origin = "";

beforeAll(async () => {
  alice = await createTestUser();
  images = http.createServer((req, res) => {
    const port = (images.address() as AddressInfo).port;
    switch (req.url) {
      case "/photo":
        // No extension and a wrong Content-Type: the type comes from the bytes.
        res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from(pngBytes(7)));
        return;
      case "/notes.png":
        res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from(textBytes()));
        return;
      case "/huge.png": {
        // 11 MB, streamed without a length: the reader must stop on its own.
        res.writeHead(200, { "content-type": "image/png" });
        const chunk = Buffer.alloc(1024 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < 11 && res.write(chunk)) sent++;
          if (sent >= 11) res.end();
          else res.once("drain", pump);
        };
        res.on("error", () => undefined);
        pump();
        return;
      }
      case "/to-localhost":
        res.writeHead(302, { location: `http://localhost:${port}/photo` }).end();
        return;
      case "/to-metadata":
        res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
        return;
      case "/gone":
        res.writeHead(404).end();
        return;
      default:
        res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});

afterAll(async () => {
  images.closeAllConnections();
  await new Promise((resolve) => images.close(resolve));
});

const withImage = (imageUrl: string, text = "[[show:messages]] what is this?") => ({
  stream: false,
  input: [{ role: "user", content: [{ type: "text", text }, { type: "image", image_url: imageUrl }] }],
});

async function post(body: unknown) {
  const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
    method: "POST",
    headers: { ...bearer(alice.apiKey), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const attachmentCount = async () => Number((await getPool().query("select count(*) from attachments where user_id = $1", [alice.id])).rows[0].count);
const threadCount = async () => Number((await getPool().query("select count(*) from threads where user_id = $1", [alice.id])).rows[0].count);

describe("Agent API image_url", () => {
  it("fetches a public image into an attachment of the message, typed by its bytes, and takes data: URLs", async () => {
    const dataUrl = `data:image/png;base64,${Buffer.from(pngBytes(9)).toString("base64")}`;
    for (const url of [`${origin}/photo`, dataUrl]) {
      const before = await attachmentCount();
      const { status, body } = await post(withImage(url));
      expect(status, JSON.stringify(body)).toBe(200);
      const response = AgentResponseSchema.parse(body);
      // The model got the stored attachment's bytes, not the foreign address.
      const answer = JSON.stringify(response.output);
      expect(answer).toContain("[image data:image/png;base64,");
      expect(answer).not.toContain(origin);
      expect(await attachmentCount()).toBe(before + 1);
      const { rows } = await getPool().query("select mime_type from attachments where user_id = $1 order by created_at desc limit 1", [alice.id]);
      expect(rows[0].mime_type).toBe("image/png");
      const history = (await (await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${response.session_id}`, { headers: bearer(alice.apiKey) })).json()) as {
        messages: { role: string; attachments?: { mime_type: string; url: string }[] }[];
      };
      const user = history.messages.find((m) => m.role === "user")!;
      expect(user.attachments).toEqual([expect.objectContaining({ mime_type: "image/png", url: expect.stringContaining(baseUrl()) })]);
      // Repeating the response follows it again: nothing fetched or stored a second time.
      const again = await post({ ...withImage(url), response_id: response.id });
      expect(again.body).toMatchObject({ id: response.id, session_id: response.session_id, status: "completed" });
      expect(await attachmentCount()).toBe(before + 1);
    }
  });

  it("refuses private addresses, redirects to them, oversize and non-images with a clear 4xx, storing nothing", async () => {
    const port = new URL(origin).port;
    const cases: [string, number, string][] = [
      [`http://localhost:${port}/photo`, 400, "private or local address"],
      ["http://169.254.169.254/latest/meta-data/", 400, "private or local address"],
      [`${origin}/to-localhost`, 400, "redirected to localhost"],
      [`${origin}/to-metadata`, 400, "redirected to 169.254.169.254"],
      [`${origin}/huge.png`, 413, "exceeds 10 MB"],
      [`${origin}/notes.png`, 415, "not a PNG, JPEG, GIF or WebP image"],
      [`${origin}/gone`, 422, "HTTP 404"],
      ["ftp://files.example.com/a.png", 400, "http(s) URL or a data: URL"],
      ["data:image/png,notbase64", 400, "base64"],
    ];
    const [attachments, threads] = [await attachmentCount(), await threadCount()];
    for (const [url, status, message] of cases) {
      const res = await post(withImage(url, "look"));
      expect(res.status, url).toBe(status);
      expect(res.body.error, url).toMatchObject({ details: { field: "input[0].content[1].image_url" }, message: expect.stringContaining(message) });
    }
    expect(await attachmentCount()).toBe(attachments);
    expect(await threadCount()).toBe(threads);
  });
});
