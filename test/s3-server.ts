import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { S3Client } from "@aws-sdk/client-s3";

// A real S3-compatible server for tests: @20minutes/s3rver on a free loopback port with a
// temporary directory. It verifies SigV4 signatures and expiry, so it refuses tampered and
// expired URLs as S3 does. Buckets are created through `configureBuckets`: its bucket-level
// API calls (paths ending in `/`) fail its own signature check.

type S3rverInstance = { run(): Promise<{ port: number }>; close(): Promise<void> };
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

export type TestS3Server = {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The S3_* variables that point the app at this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
};

export async function startS3Server({ bucket = "agent-files-test" }: { bucket?: string } = {}): Promise<TestS3Server> {
  const S3rver = createRequire(import.meta.url)("@20minutes/s3rver") as S3rverClass;
  const directory = mkdtempSync(path.join(os.tmpdir(), "dispatch-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver's built-in account.
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  return {
    endpoint,
    bucket,
    region: "us-east-1",
    ...credentials,
    env: {
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
    },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An S3 client of the test server, as a test reads or signs what Dispatch stored there. */
export function s3ClientOf(s3: TestS3Server): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}
