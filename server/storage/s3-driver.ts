import "server-only";
import { timingSafeEqual } from "node:crypto";
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { ObjectRef, SignatureCheck, StorageDriver } from "./types";
import type { ParsedSignedUrl, StorageTargets } from "./signed-url";

// Any S3-compatible service (AWS, MinIO, R2, Supabase's S3 API...). Checksums are only
// computed when an operation requires them: the SDK's default adds x-amz-checksum-*
// parameters to presigned PUT URLs that S3 and MinIO then reject for browser uploads.

export type S3Config = {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
};

export type S3Driver = StorageDriver & {
  readonly name: "s3";
  /** The endpoint and bucket parseSignedUrl recognises as this storage. */
  readonly target: NonNullable<StorageTargets["s3"]>;
};

const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

const secondsUntil = (expiresAt: Date, now = Date.now()) => Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000));

function isNotFound(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 404 || err.name === "NotFound" || err.name === "NoSuchKey");
}

// X-Amz-Date is ISO 8601 basic format: 20260315T100000Z.
function parseAmzDate(value: string | null): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// Long: a driver is the object of its methods, made by one factory over one client.
export function createS3Driver(config: S3Config): S3Driver {
  const clientFor = (forcePathStyle: boolean) =>
    new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle,
      credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  const client = clientFor(config.forcePathStyle);
  // Re-signing a URL of the other addressing style needs a client that builds that style.
  let otherStyleClient: S3Client | undefined;
  const signerFor = (style: "path" | "virtual-host") =>
    (style === "path") === config.forcePathStyle ? client : (otherStyleClient ??= clientFor(style === "path"));
  const staticCredentials = Boolean(config.accessKeyId && config.secretAccessKey);
  const endpoint = new URL(config.endpoint ?? `https://s3.${config.region}.amazonaws.com`);

  return {
    name: "s3",
    bucket: config.bucket,
    target: { endpoint, bucket: config.bucket },

    async putObject({ bucket, path, body, contentType }) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: path, Body: body, ContentType: contentType, ContentLength: body.byteLength }));
    },

    async headObject({ bucket, path }) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: path }));
        return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? null };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async getObject({ bucket, path }) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: path }));
        if (!object.Body) return null;
        return { contentType: object.ContentType ?? null, data: await object.Body.transformToByteArray() };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async deleteObject({ bucket, path }) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: path }));
    },

    signGetUrl({ bucket, path, expiresAt }: ObjectRef & { expiresAt: Date }) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: path }), { expiresIn: secondsUntil(expiresAt) });
    },

    async presignPut({ bucket, path, contentType, contentLength, expiresAt }) {
      const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: path, ContentType: contentType, ContentLength: contentLength }), {
        expiresIn: secondsUntil(expiresAt),
        // Bound into the signature, so the upload can be neither another type nor another size.
        signableHeaders: new Set(["content-type", "content-length"]),
      });
      return { url, headers: { "content-type": contentType } };
    },

    /**
     * Expiry from X-Amz-Date + X-Amz-Expires; with static credentials the signature too, by
     * signing the same request at the same instant and comparing. (With rotating role
     * credentials a URL cannot be re-signed; the owner check on the object still applies.)
     */
    async checkSignedGetUrl(parsed: ParsedSignedUrl, now = Date.now()): Promise<SignatureCheck> {
      if (parsed.kind !== "s3") return { ok: false, reason: "signature" };
      const params = parsed.url.searchParams;
      const signedAt = parseAmzDate(params.get("X-Amz-Date"));
      const expiresIn = Number(params.get("X-Amz-Expires"));
      const signature = params.get("X-Amz-Signature");
      if (!signedAt || !Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_PRESIGN_SECONDS || !signature) {
        return { ok: false, reason: "signature" };
      }
      if (staticCredentials) {
        let expected: string | null;
        try {
          const resigned = await getSignedUrl(signerFor(parsed.style), new GetObjectCommand({ Bucket: parsed.bucket, Key: parsed.path }), {
            expiresIn,
            signingDate: signedAt,
          });
          expected = new URL(resigned).searchParams.get("X-Amz-Signature");
        } catch {
          expected = null;
        }
        if (!expected || !sameString(expected, signature)) return { ok: false, reason: "signature" };
      }
      if (signedAt.getTime() + expiresIn * 1000 <= now) return { ok: false, reason: "expired" };
      return { ok: true };
    },
  };
}
