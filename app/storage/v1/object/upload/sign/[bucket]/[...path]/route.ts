import { apiRoute, jsonResponse } from "@/server/http/route";
import { receiveSignedUpload } from "@/server/services/attachments";
import { closingOnRefusal } from "@/server/storage/upload-body";

export const dynamic = "force-dynamic";

// PUT /storage/v1/object/upload/sign/{bucket}/{path}?token=: a presigned upload to local storage (the token is the credential)
export const PUT = apiRoute(async (req, ctx) => {
  const { bucket, path } = (await ctx.params) as { bucket: string; path: string[] };
  const stored = await closingOnRefusal(
    receiveSignedUpload({
      bucket,
      path: path.join("/"),
      token: new URL(req.url).searchParams.get("token"),
      contentType: req.headers.get("content-type"),
      body: req.body,
    }),
    req.body,
  );
  return stored instanceof Response ? stored : jsonResponse(stored);
});
