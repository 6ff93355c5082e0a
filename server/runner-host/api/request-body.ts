import "server-only";
import { checkJsonText, decodeUtf8, NOT_UTF8 } from "../../input-text";
import { HostApiFailure } from "./failure";

// A runner's request body, read with a hard cap: a body larger than the cap is never held in
// memory, whatever Content-Length claims (it may be absent, chunked or a lie).

export type RequestBody = { json: Record<string, unknown>; bytes: number; declaredBytes: number | null };

export function tooLarge(bytes: number | null, limit: number): HostApiFailure {
  return new HostApiFailure("payload_too_large", `The request body is ${bytes === null ? "larger than" : `${bytes} bytes; the limit is`} ${limit} bytes; put large data in an artifact`, {
    details: { limit_bytes: limit },
  });
}

function declaredLength(req: Request): number | null {
  const raw = req.headers.get("content-length");
  if (raw === null || !/^\d+$/.test(raw)) return null;
  return Number(raw);
}

export async function readRequestBody(req: Request, capBytes: number): Promise<RequestBody> {
  const declaredBytes = declaredLength(req);
  if (declaredBytes !== null && declaredBytes > capBytes) throw tooLarge(declaredBytes, capBytes);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > capBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(null, capBytes);
      }
      chunks.push(value);
    }
  }
  const text = decodeUtf8(Buffer.concat(chunks));
  if (text === null) throw new HostApiFailure("invalid_argument", NOT_UTF8.message);
  const refusal = checkJsonText(text);
  if (refusal) throw new HostApiFailure("invalid_argument", refusal.message, refusal.field ? { details: { field: refusal.field } } : {});
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HostApiFailure("invalid_argument", "The request body must be JSON: {run_id, ...parameters}");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new HostApiFailure("invalid_argument", "The request body must be a JSON object: {run_id, ...parameters}");
  }
  return { json: json as Record<string, unknown>, bytes, declaredBytes };
}
