import "server-only";
import { env } from "../../env";
import { AppError, type ErrorCode } from "../../kernel/errors";
import { fetchPublic, PublicFetchError, type PublicFetchRefusal } from "../../net/fetch-public";
import type { AgentRequest } from "../../protocols/agent-api/request";
import { ALLOWED_IMAGES_TEXT, MAX_ATTACHMENT_BYTES, sniffImageType, type ImageMimeType } from "../../storage/image-type";
import { parseAttachmentUrl, uploadAttachment } from "../../attachments/service";

// The Agent API's image_url from anywhere: an image that is not already one of this server's
// signed attachment URLs is brought in as an attachment of the caller's, so the run (and its
// history, and the runner it reaches) sees it like an uploaded one. A foreign http(s) URL is
// fetched by the server (server/net/fetch-public.ts: public addresses only, redirects re-checked,
// at most MAX_ATTACHMENT_BYTES read, one deadline); a data: URL is decoded. Either must be a
// PNG, JPEG, GIF or WebP by its bytes. Every image is checked before any is stored, so a refused
// request stores nothing.

const FETCH_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;
const DATA_URL = /^data:([^;,]*)(;base64)?,(.*)$/s;

const REFUSAL_STATUS: Record<PublicFetchRefusal["reason"], ErrorCode> = {
  scheme: "BAD_REQUEST",
  address: "BAD_REQUEST",
  redirect: "BAD_REQUEST",
  status: "UNPROCESSABLE",
  timeout: "UNPROCESSABLE",
  network: "UNPROCESSABLE",
  too_large: "PAYLOAD_TOO_LARGE",
};

function refusal(field: string, code: ErrorCode, why: string): AppError {
  return new AppError(code, `${field}: ${why}`, { field });
}

function decodeDataUrl(url: string, field: string): Buffer {
  const match = DATA_URL.exec(url);
  if (!match || !match[2]) throw refusal(field, "BAD_REQUEST", "a data: URL must be base64 (data:image/png;base64,...)");
  const body = Buffer.from(match[3]!, "base64");
  if (body.byteLength > MAX_ATTACHMENT_BYTES) throw refusal(field, "PAYLOAD_TOO_LARGE", `the image exceeds ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB`);
  return body;
}

async function fetchImage(url: string, field: string): Promise<Buffer> {
  try {
    const { body } = await fetchPublic(url, {
      maxBytes: MAX_ATTACHMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxRedirects: MAX_REDIRECTS,
      allowedHosts: env.IMAGE_URL_ALLOWED_HOSTS,
      accept: "image/png, image/jpeg, image/gif, image/webp",
    });
    return body;
  } catch (err) {
    if (!(err instanceof PublicFetchError)) throw err;
    const { reason, message } = err.refusal;
    const why =
      reason === "too_large"
        ? `the image exceeds ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB`
        : reason === "address" || reason === "redirect"
          ? `not fetched: ${message}; only images on public addresses are fetched`
          : `could not be fetched: ${message}`;
    throw refusal(field, REFUSAL_STATUS[reason], why);
  }
}

/**
 * The request with every foreign or inline image of its new user message replaced by a signed
 * URL of the attachment it became; the request itself when there is none.
 */
export async function importRequestImages(opts: { userId: string; request: AgentRequest; userIndex: number | null; requestOrigin?: string | null }): Promise<AgentRequest> {
  const { request, userIndex } = opts;
  if (userIndex === null) return request;
  const content = request.input[userIndex]!.content ?? [];
  const imported: { index: number; bytes: Buffer; type: ImageMimeType }[] = [];
  for (const [index, part] of content.entries()) {
    if (part.type !== "image") continue;
    const field = `input[${userIndex}].content[${index}].image_url`;
    const url = part.image_url;
    let bytes: Buffer;
    if (url.startsWith("data:")) bytes = decodeDataUrl(url, field);
    else {
      const ours = parseAttachmentUrl(url, { requestOrigin: opts.requestOrigin });
      if (ours.ok) continue;
      if (!/^https?:\/\//i.test(url)) throw refusal(field, "BAD_REQUEST", "must be an http(s) URL or a data: URL");
      bytes = await fetchImage(url, field);
    }
    const type = sniffImageType(bytes);
    if (!type) throw refusal(field, "UNSUPPORTED_MEDIA_TYPE", `not a ${ALLOWED_IMAGES_TEXT} image`);
    imported.push({ index, bytes, type });
  }
  if (imported.length === 0) return request;

  const urls = new Map<number, string>();
  for (const image of imported) {
    const stored = await uploadAttachment({ userId: opts.userId, threadId: null, file: { data: image.bytes, declaredType: image.type }, requestOrigin: opts.requestOrigin });
    urls.set(image.index, stored.url);
  }
  const input = request.input.map((message, i) =>
    i !== userIndex
      ? message
      : { ...message, content: content.map((part, index) => (part.type === "image" && urls.has(index) ? { ...part, image_url: urls.get(index)! } : part)) },
  );
  return { ...request, input };
}
