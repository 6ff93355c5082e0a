import { apiRoute } from "@/server/http/route";
import { openSignedObject } from "@/server/services/attachments";

export const dynamic = "force-dynamic";

// GET /storage/v1/object/sign/{bucket}/{path}?token=: a local-storage object behind a signed URL (the token is the credential)
export const GET = apiRoute(async (req, ctx) => {
  const { bucket, path } = (await ctx.params) as { bucket: string; path: string[] };
  const object = await openSignedObject({ bucket, path: path.join("/"), token: new URL(req.url).searchParams.get("token") });
  return new Response(object.stream, {
    headers: {
      "content-type": object.contentType,
      "content-length": String(object.size),
      "cache-control": "private, max-age=300",
      "x-content-type-options": "nosniff",
      "content-disposition": "inline",
    },
  });
});
