import "server-only";
import { readCapped } from "../../lib/read-capped";
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
  const raw = await readCapped(req.body, capBytes, () => tooLarge(null, capBytes));
  const bytes = raw.byteLength;
  const text = decodeUtf8(raw);
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
