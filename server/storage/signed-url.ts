// parseSignedUrl: which of our stored objects a signed URL names. It recognises the forms
// our drivers issue and nothing else:
//   local / Supabase form  {our origin}/storage/v1/object/sign/{bucket}/{path}?token=…
//   S3 path style          {endpoint}/{bucket}/{key}?X-Amz-…
//   S3 virtual-host style  {scheme}://{bucket}.{endpoint host}/{key}?X-Amz-…
// A URL on any other host is refused before anything is fetched, so a run can never make
// the server reach out to an address the caller chose. Signatures are checked by the drivers.

export const LOCAL_SIGN_PREFIX = "/storage/v1/object/sign/";
export const LOCAL_UPLOAD_PREFIX = "/storage/v1/object/upload/sign/";

export type StorageTargets = {
  /** Origins the app is reached at: PUBLIC_URL and the request's own. */
  origins: string[];
  /** The S3 endpoint and bucket, when S3 is the configured storage. */
  s3?: { endpoint: URL; bucket: string };
};

export type ParsedSignedUrl =
  | { kind: "local"; bucket: string; path: string; url: URL; token: string }
  | { kind: "s3"; style: "path" | "virtual-host"; bucket: string; path: string; url: URL };

export type SignedUrlParse = ({ ok: true } & ParsedSignedUrl) | { ok: false; reason: "data-url" | "invalid" | "unknown-host" };

function decodeSegments(segments: string[]): string[] | null {
  try {
    const decoded = segments.map((s) => decodeURIComponent(s));
    return decoded.every((s) => s.length > 0 && !s.includes("/")) ? decoded : null;
  } catch {
    return null;
  }
}

function splitObject(pathname: string): { bucket: string; path: string } | null {
  const segments = decodeSegments(pathname.split("/"));
  if (!segments || segments.length < 2) return null;
  return { bucket: segments[0]!, path: segments.slice(1).join("/") };
}

function parseS3(url: URL, s3: NonNullable<StorageTargets["s3"]>): SignedUrlParse | null {
  if (url.protocol !== s3.endpoint.protocol) return null;
  const signed = url.searchParams.has("X-Amz-Signature");
  if (url.host === s3.endpoint.host) {
    const object = splitObject(url.pathname.slice(1));
    return object && signed ? { ok: true, kind: "s3", style: "path", ...object, url } : { ok: false, reason: "invalid" };
  }
  if (url.host === `${s3.bucket}.${s3.endpoint.host}`) {
    const key = decodeSegments(url.pathname.slice(1).split("/"));
    return key && signed ? { ok: true, kind: "s3", style: "virtual-host", bucket: s3.bucket, path: key.join("/"), url } : { ok: false, reason: "invalid" };
  }
  return null;
}

export function parseSignedUrl(raw: string, targets: StorageTargets): SignedUrlParse {
  if (/^\s*data:/i.test(raw)) return { ok: false, reason: "data-url" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "invalid" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "invalid" };
  if (url.username || url.password) return { ok: false, reason: "invalid" };

  if (targets.origins.includes(url.origin)) {
    const token = url.searchParams.get("token");
    const object = url.pathname.startsWith(LOCAL_SIGN_PREFIX) ? splitObject(url.pathname.slice(LOCAL_SIGN_PREFIX.length)) : null;
    return object && token ? { ok: true, kind: "local", ...object, url, token } : { ok: false, reason: "invalid" };
  }
  return (targets.s3 && parseS3(url, targets.s3)) || { ok: false, reason: "unknown-host" };
}
