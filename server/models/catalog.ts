import "server-only";
import { z } from "zod";
import { env } from "../env";
import { DEFAULT_OPENAI_MODEL, DEMO_MODEL_ID } from "./constants";

// The models this server offers, from configuration alone. The default is what LLM_MODEL (or
// OpenAI, or the offline demo model) names; LLM_MODELS adds more, on the same server or on other
// OpenAI-compatible servers. A request picks one by id (the Agent API's `model`, AG-UI's
// `forwardedProps.model`, the chat's model picker); an unknown id is the caller's mistake.

export const modelInfoSchema = z.object({
  id: z.string().describe("Model id as the provider knows it"),
  provider: z.enum(["openai-compatible", "openai", "demo"]).describe("Where the model runs"),
  label: z.string().describe("Human-readable name for the UI"),
  offline: z.boolean().describe("True for the built-in demo model, which needs no network or key"),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

/**
 * A model and where to reach it; `baseUrl` and `apiKey` never leave the server. `fileTypes`: the
 * document types it takes as file parts (others reach it as extracted text, server/files).
 */
export type ConfiguredModel = ModelInfo & { baseUrl?: string; apiKey?: string; fileTypes: readonly string[] };

// `files: true` is every document type the AI SDK's providers pass as a file part (PDF; text
// files become text parts with their content); JSON has no file part there and goes as text.
export const FILE_PART_TYPES = ["application/pdf", "text/plain", "text/markdown", "text/csv"] as const;
// OpenAI's own API takes PDFs as files (and refuses other file parts).
const OPENAI_FILE_TYPES = ["application/pdf"] as const;
const FilesSchema = z.union([z.boolean(), z.array(z.enum(FILE_PART_TYPES))]);

const ModelEntrySchema = z.strictObject({
  id: z.string().trim().min(1).max(200),
  label: z.string().trim().min(1).max(200).optional(),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  api_key: z.string().min(1).optional(),
  files: FilesSchema.optional(),
});

function fileTypesOf(files: z.infer<typeof FilesSchema> | undefined, fallback: readonly string[]): readonly string[] {
  if (files === undefined) return fallback;
  return files === true ? FILE_PART_TYPES : files === false ? [] : files;
}

/** LLM_FILE_PARTS: "true", "false", or a comma-separated list of FILE_PART_TYPES. */
function defaultFileTypes(): readonly string[] | undefined {
  const value = env.LLM_FILE_PARTS?.trim();
  if (!value) return undefined;
  if (value === "true" || value === "false") return fileTypesOf(value === "true", []);
  const types = value.split(",").map((t) => t.trim()).filter(Boolean);
  const unknown = types.find((t) => !(FILE_PART_TYPES as readonly string[]).includes(t));
  if (unknown) throw new Error(`LLM_FILE_PARTS: ${JSON.stringify(unknown)} is not one of ${FILE_PART_TYPES.join(", ")} (or use true / false)`);
  return types;
}

function defaultModel(): ConfiguredModel {
  if (env.LLM_BASE_URL && env.LLM_MODEL) {
    return {
      id: env.LLM_MODEL,
      provider: "openai-compatible",
      label: `${env.LLM_MODEL} (OpenAI-compatible server)`,
      offline: false,
      baseUrl: env.LLM_BASE_URL,
      apiKey: env.LLM_API_KEY,
      fileTypes: defaultFileTypes() ?? [],
    };
  }
  if (env.OPENAI_API_KEY) {
    const id = env.LLM_MODEL ?? DEFAULT_OPENAI_MODEL;
    return { id, provider: "openai", label: `${id} (OpenAI)`, offline: false, apiKey: env.OPENAI_API_KEY, fileTypes: defaultFileTypes() ?? OPENAI_FILE_TYPES };
  }
  return { id: DEMO_MODEL_ID, provider: "demo", label: "Offline demo model", offline: true, fileTypes: [] };
}

function entries(value: string): z.infer<typeof ModelEntrySchema>[] {
  if (!value.startsWith("[")) return value.split(",").map((id) => ({ id: id.trim() })).filter((entry) => entry.id);
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new Error("LLM_MODELS: not valid JSON (a JSON array of {id, label?, base_url?, api_key?, files?}, or comma-separated model ids)");
  }
  const parsed = z.array(ModelEntrySchema).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`LLM_MODELS[${issue.path.join(".")}]: ${issue.message}`);
  }
  return parsed.data;
}

/** The configured models, default first; throws naming the problem when LLM_MODELS is wrong. */
export function loadModelCatalog(): ConfiguredModel[] {
  const base = defaultModel();
  const models = [base];
  for (const entry of env.LLM_MODELS ? entries(env.LLM_MODELS) : []) {
    if (models.some((m) => m.id === entry.id)) throw new Error(`LLM_MODELS: model ${JSON.stringify(entry.id)} is listed twice`);
    if (entry.base_url) {
      models.push({
        id: entry.id,
        provider: "openai-compatible",
        label: entry.label ?? `${entry.id} (${new URL(entry.base_url).host})`,
        offline: false,
        baseUrl: entry.base_url,
        apiKey: entry.api_key,
        fileTypes: fileTypesOf(entry.files, []),
      });
    } else if (base.provider === "demo") {
      throw new Error(`LLM_MODELS: model ${JSON.stringify(entry.id)} has no base_url and no model server is configured (LLM_BASE_URL + LLM_MODEL, or OPENAI_API_KEY)`);
    } else {
      const where = base.provider === "openai" ? "OpenAI" : "OpenAI-compatible server";
      models.push({ ...base, id: entry.id, label: entry.label ?? `${entry.id} (${where})`, apiKey: entry.api_key ?? base.apiKey, fileTypes: fileTypesOf(entry.files, base.fileTypes) });
    }
  }
  return models;
}

let catalog: ConfiguredModel[] | null = null;

/** The configured models, default first (read once per process). */
export function modelCatalog(): readonly ConfiguredModel[] {
  catalog ??= loadModelCatalog();
  return catalog;
}

const publicInfo = ({ id, provider, label, offline }: ConfiguredModel): ModelInfo => ({ id, provider, label, offline });

/** What the API says of the configured models, default first. */
export function listModels(): ModelInfo[] {
  return modelCatalog().map(publicInfo);
}

/** The default model's public description. */
export function currentModelInfo(): ModelInfo {
  return publicInfo(modelCatalog()[0]!);
}

/** The model with this id (the default when absent), or null when no such model is configured. */
export function findModel(id?: string | null): ConfiguredModel | null {
  const models = modelCatalog();
  if (!id) return models[0]!;
  return models.find((m) => m.id === id) ?? null;
}
