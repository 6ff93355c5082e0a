import "server-only";
import { openSignedObject, receiveSignedUpload } from "../../attachments/service";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

// Local storage behind signed URLs: the token in the URL is the credential, checked by the service.

/** GET /storage/v1/object/sign/{bucket}/{path}?token=: a local-storage object behind a signed URL. */
export const signedObjectEndpoint = endpoint({
  method: "GET",
  path: "/storage/v1/object/sign/[bucket]/[...path]",
  auth: "none",
  async handle({ req, params }) {
    const object = await openSignedObject({ bucket: params.bucket!, path: params.path!, token: new URL(req.url).searchParams.get("token") });
    return new Response(object.stream, {
      headers: {
        "content-type": object.contentType,
        "content-length": String(object.size),
        "cache-control": "private, max-age=300",
        "x-content-type-options": "nosniff",
        "content-disposition": "inline",
      },
    });
  },
});

/** PUT /storage/v1/object/upload/sign/{bucket}/{path}?token=: a presigned upload to local storage. */
export const signedUploadEndpoint = endpoint({
  method: "PUT",
  path: "/storage/v1/object/upload/sign/[bucket]/[...path]",
  auth: "none",
  upload: true,
  async handle({ req, params }) {
    const token = new URL(req.url).searchParams.get("token");
    const stored = await receiveSignedUpload({ bucket: params.bucket!, path: params.path!, token, contentType: req.headers.get("content-type"), body: req.body });
    return jsonResponse(stored);
  },
});
