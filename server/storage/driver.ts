import "server-only";
import path from "node:path";
import { env } from "../env";
import { createLocalDriver, type LocalDriver } from "./local-driver";
import { createS3Driver, type S3Driver } from "./s3-driver";

// One interface over the two places attachments live: any S3-compatible service when
// S3_BUCKET is set, else the local disk under DATA_DIR (zero-config). Callers name objects
// by {bucket, path}; each driver turns that into its own signed URLs.

export const LOCAL_BUCKET = "agent-files";

let driver: LocalDriver | S3Driver | undefined;

/** The storage the environment configures, created once per process. */
export function getStorage(): LocalDriver | S3Driver {
  driver ??= env.S3_BUCKET
    ? createS3Driver({
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE ?? false,
      })
    : createLocalDriver({ root: path.resolve(env.DATA_DIR, "storage"), bucket: LOCAL_BUCKET });
  return driver;
}
