import "server-only";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { endpoint, type Endpoint } from "../endpoint";
import { jsonResponse } from "../json";
import { openApiDocument, OPENAPI_PATH, type DocumentedEndpoint } from "../openapi/document";
import type { OperationDoc } from "../openapi/operation";
import { documentedEndpoints } from "./registry";

// The API's machine-readable description and its human-readable reference page, rendered in the
// browser by Scalar (@scalar/api-reference) from the same document (docs/threads.md).

export const API_VERSION = "1.0.0";
const REFERENCE_PATH = "/api/v1/reference";
const SCALAR_BUNDLE = path.join(process.cwd(), "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js");

let document: Record<string, unknown> | undefined;

/** GET /api/v1/openapi.json: the OpenAPI 3.1 document. */
export const openApiEndpoint: Endpoint<"GET"> = endpoint({
  method: "GET",
  path: OPENAPI_PATH,
  auth: "none",
  handle: async () => jsonResponse((document ??= apiDocument())),
});

/** GET /api/v1/reference: the API reference page. */
export const apiReferenceEndpoint: Endpoint<"GET"> = endpoint({
  method: "GET",
  path: REFERENCE_PATH,
  auth: "none",
  handle: async () =>
    new Response(
      `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dispatch API reference</title></head>
<body>
<script id="api-reference" data-url="${OPENAPI_PATH}"></script>
<script src="${REFERENCE_PATH}/scalar.js"></script>
</body>
</html>`,
      { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } },
    ),
});

/** GET /api/v1/reference/scalar.js: the renderer, served from this server (no CDN). */
export const apiReferenceScriptEndpoint: Endpoint<"GET"> = endpoint({
  method: "GET",
  path: `${REFERENCE_PATH}/scalar.js`,
  auth: "none",
  handle: async () => new Response(await readFile(SCALAR_BUNDLE), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }),
});

const OWN_DOCS: DocumentedEndpoint[] = [
  {
    endpoint: openApiEndpoint,
    doc: { operationId: "openApiDocument", tag: "Reference", summary: "This OpenAPI document", security: "none", responses: { 200: { description: "The OpenAPI 3.1 document.", contentType: "application/json" } } },
  },
  {
    endpoint: apiReferenceEndpoint,
    doc: { operationId: "apiReference", tag: "Reference", summary: "The API reference page", security: "none", responses: { 200: { description: "An HTML page rendering this document.", contentType: "text/html" } } },
  },
  {
    endpoint: apiReferenceScriptEndpoint,
    doc: { operationId: "apiReferenceScript", tag: "Reference", summary: "The reference page's renderer", security: "none", responses: { 200: { description: "Scalar's browser bundle.", contentType: "text/javascript" } } },
  },
];

/** Every public endpoint with its doc, this file's included. */
export function allDocumentedEndpoints(): { endpoint: Endpoint; doc: OperationDoc }[] {
  return [...documentedEndpoints(), ...OWN_DOCS];
}

export function apiDocument(): Record<string, unknown> {
  return openApiDocument(allDocumentedEndpoints(), { version: API_VERSION });
}
