import { z } from "zod";
import type { Endpoint } from "../endpoint";
import type { OperationDoc, ResponseDoc } from "./operation";

// The OpenAPI 3.1 document of the public REST API, made from the endpoints themselves: each
// request schema is the zod schema the endpoint validates with (`jsonBody`, `query`), each
// response schema the one its doc declares, converted with zod's own z.toJSONSchema (JSON Schema
// 2020-12, which OpenAPI 3.1 uses as it is). Named schemas (`.meta({id})`) become components:
// as responses describe them under their id, as requests under `<id>Input` (defaults and
// coercions make the two differ).

type Json = Record<string, unknown>;
type Mode = "input" | "output";
export type DocumentedEndpoint = { endpoint: Endpoint; doc: OperationDoc };

export const OPENAPI_PATH = "/api/v1/openapi.json";

/** Rewrites `#/$defs/X` to the component it becomes, everywhere in a converted schema. */
function rewriteRefs(value: unknown, name: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, name));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? `#/components/schemas/${name(v.slice(8))}` : rewriteRefs(v, name)]),
  );
}

class Schemas {
  readonly components: Record<string, Json> = {};

  /** The JSON Schema of `schema` as `mode` sees it; its named parts are put in the components. */
  convert(schema: z.ZodType, mode: Mode): Json {
    const name = (id: string) => (mode === "input" ? `${id}Input` : id);
    const { $schema: _, $defs, ...root } = z.toJSONSchema(schema, { io: mode, unrepresentable: "any" }) as Json;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) this.components[name(id)] = rewriteRefs(def, name) as Json;
    return rewriteRefs(root, name) as Json;
  }
}

const ERROR_SCHEMA = z
  .object({ error: z.object({ code: z.string().describe("A stable code: BAD_REQUEST, NOT_FOUND, CONFLICT, ..."), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) })
  .meta({ id: "Error", description: "Every failure of every endpoint has this shape." });

const TAGS: Record<string, string> = {
  Threads: "The caller's threads: list, search, label, fork, delete, and their runs (docs/threads.md).",
  Runs: "Start runs, follow their events, cancel them, answer their approval requests (docs/agent-api.md).",
  History: "A thread's messages, a day at a time (docs/history.md).",
  Attachments: "Images and documents for user messages (docs/attachments.md).",
  "Agent API": "The streaming Agent API door (docs/agent-api.md).",
  "AG-UI": "The AG-UI door for clients that resend their conversation (docs/ag-ui.md).",
  Status: "Health, the caller, the models.",
  Reference: "This document and its reference page.",
};

const STATUS_TEXT: Record<number, string> = {
  400: "The request is malformed; `error.details.field` names the wrong part.",
  401: "No valid API key (`Authorization: Bearer`) or session.",
  404: "Not found, or not the caller's.",
  406: "The Accept header names nothing this endpoint serves.",
  409: "Conflicts with the thread's state (a run in progress).",
  410: "The run's events expired under the deployment's retention policy; its thread's messages remain.",
  413: "The body is too large.",
  415: "The body's media type is not accepted.",
  429: "Too many requests or followers; `Retry-After` says when to retry.",
  503: "The database is unavailable; `Retry-After` says when to retry.",
};

function responseObject(response: ResponseDoc, schemas: Schemas): Json {
  if ("json" in response) return { description: response.description, content: { "application/json": { schema: schemas.convert(response.json, "output") } } };
  if ("sse" in response) return { description: response.description, content: { "text/event-stream": { schema: { type: "string", description: `Server-Sent Events: ${response.sse}` } } } };
  if ("contentType" in response) return { description: response.description, content: { [response.contentType]: { schema: { type: "string" } } } };
  return { description: response.description };
}

function parameters(e: Endpoint, doc: OperationDoc, schemas: Schemas): Json[] {
  const path = [...e.path.matchAll(/\[(\w+)\]/g)].map(([, name]) => ({ name, in: "path", required: true, description: doc.params?.[name!], schema: { type: "string" } }));
  const query = e.schemas?.query;
  if (!query) return path;
  const fields = schemas.convert(query, "input") as { properties?: Record<string, Json>; required?: string[] };
  const inQuery = Object.entries(fields.properties ?? {}).map(([name, { description, ...schema }]) => ({
    name,
    in: "query",
    required: fields.required?.includes(name) ?? false,
    ...(description ? { description } : {}),
    schema,
    ...(schema.type === "array" ? { style: "form", explode: true } : {}),
  }));
  return [...path, ...inQuery];
}

function requestBody(e: Endpoint, doc: OperationDoc, schemas: Schemas): Json | undefined {
  const body = e.schemas?.body;
  if (body) return { required: true, content: { "application/json": { schema: schemas.convert(body, "input") } } };
  if (!doc.requestBody) return undefined;
  const schema = doc.requestBody.schema ? schemas.convert(doc.requestBody.schema, "input") : { type: "object" };
  return { required: true, description: doc.requestBody.description, content: { [doc.requestBody.contentType]: { schema } } };
}

function operation(e: Endpoint, doc: OperationDoc, schemas: Schemas): Json {
  const errorRef = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
  // Every endpoint refuses a path or query parameter no handler could use (a NUL) with 400.
  const errors = [...new Set([400, ...(doc.security === "none" ? [] : [401]), ...(doc.errors ?? []), 503])].sort().filter((s) => !(s in doc.responses));
  const responses: Json = Object.fromEntries(Object.entries(doc.responses).map(([status, r]) => [status, responseObject(r, schemas)]));
  for (const status of errors) responses[status] = { description: STATUS_TEXT[status] ?? "Refused.", content: errorRef };
  const body = requestBody(e, doc, schemas);
  const params = parameters(e, doc, schemas);
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(doc.security === "none" ? { security: [] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of these endpoints. */
export function openApiDocument(endpoints: DocumentedEndpoint[], info: { version: string }): Json {
  const schemas = new Schemas();
  schemas.convert(ERROR_SCHEMA, "output");
  const paths: Record<string, Json> = {};
  for (const { endpoint: e, doc } of endpoints) {
    const path = e.path.replace(/\[(\w+)\]/g, "{$1}");
    paths[path] = { ...paths[path], [e.method.toLowerCase()]: operation(e, doc, schemas) };
  }
  const tags = [...new Set(endpoints.map(({ doc }) => doc.tag))].map((name) => ({ name, description: TAGS[name] ?? name }));
  return {
    openapi: "3.1.0",
    info: {
      title: "Dispatch API",
      version: info.version,
      description: "The public REST API of a Dispatch server. Authenticate with an API key (`Authorization: Bearer <key>`) or a browser session. Errors are `{error: {code, message, details?}}`.",
      license: { name: "Proprietary", identifier: "LicenseRef-Dispatch" },
    },
    servers: [{ url: "/", description: "The server that serves this document." }],
    tags,
    security: [{ apiKey: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key, made in the console under API keys." },
        session: { type: "apiKey", in: "cookie", name: "authjs.session-token", description: "The browser session of a signed-in user." },
      },
      schemas: schemas.components,
    },
  };
}
