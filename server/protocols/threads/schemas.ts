import { z } from "zod";

// The threads REST API's wire schemas (docs/threads.md). The endpoints validate with them and the
// OpenAPI document is generated from them (server/http/openapi), so the two cannot disagree.

const MAX_METADATA_KEYS = 16;
const MAX_METADATA_JSON_BYTES = 2048;

export const ThreadMetadataSchema = z
  .record(z.string().min(1).max(64), z.union([z.string().max(512), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `at most ${MAX_METADATA_KEYS} keys`)
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_JSON_BYTES, `at most ${MAX_METADATA_JSON_BYTES} bytes as JSON`)
  .meta({ id: "ThreadMetadata", description: `A flat JSON object of your own: up to ${MAX_METADATA_KEYS} keys, values string, number, boolean or null, ${MAX_METADATA_JSON_BYTES} bytes in all.` });

const TagSchema = z.string().trim().min(1).max(64);
export const ThreadTagsSchema = z.array(TagSchema).max(20).meta({ id: "ThreadTags", description: "Up to 20 tags of 1 to 64 characters; duplicates are dropped." });

export const ThreadSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    metadata: ThreadMetadataSchema,
    tags: z.array(z.string()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime().describe("The thread's last activity: lists are ordered by it, newest first."),
    running: z.boolean().describe("A run of the thread is queued or running."),
  })
  .meta({ id: "Thread" });

const cursorField = z.string().min(1).max(200).optional().describe("`nextCursor` of the previous page; absent for the first page.");
const limitField = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback).describe(`Items per page, 1 to ${max}.`);

const metadataFilter = z
  .string()
  .max(2048)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      return z.NEVER;
    }
  })
  .pipe(ThreadMetadataSchema);

export const ListThreadsQuerySchema = z.object({
  cursor: cursorField,
  limit: limitField(100, 30),
  tag: z.array(TagSchema).max(20).optional().describe("Only threads carrying this tag; repeat it to require several."),
  metadata: metadataFilter.optional().describe('Only threads whose metadata holds these keys with these values: a JSON object, e.g. `{"project":"apollo"}`.'),
});

export const ThreadPageSchema = z.object({ items: z.array(ThreadSchema), nextCursor: z.string().nullable() }).meta({ id: "ThreadPage" });

export const UpdateThreadSchema = z
  .strictObject({
    title: z.string().max(200).optional().describe("The new title; whitespace is collapsed, and it may not be empty."),
    metadata: ThreadMetadataSchema.optional().describe("Replaces the whole metadata object."),
    tags: ThreadTagsSchema.optional().describe("Replaces the whole tag list."),
  })
  .refine((body) => body.title !== undefined || body.metadata !== undefined || body.tags !== undefined, "Give at least one of title, metadata, tags");

export const ForkThreadSchema = z.strictObject({
  title: z.string().max(200).optional().describe("The copy's title; the original's when absent."),
});

export const DeletedThreadSchema = z.object({ id: z.uuid(), deleted: z.literal(true) });

export const SearchQuerySchema = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('What to find: words (all must occur), "quoted phrases", `or`, and `-word` to exclude. Chinese is matched as consecutive characters.'),
  cursor: z.string().regex(/^\d{1,5}$/).optional().describe("`nextCursor` of the previous page."),
  limit: limitField(50, 20),
});

export const MessageHitSchema = z
  .object({
    threadId: z.uuid(),
    threadTitle: z.string(),
    messageId: z.string().describe("The message's id in the thread's history (`/api/v1/agent/history`)."),
    role: z.enum(["user", "assistant"]),
    createdAt: z.iso.datetime(),
    rank: z.number().describe("ts_rank of the match: higher is better; results come best first."),
    snippet: z.string().describe("Fragments of the message around the matches (plain text, not HTML)."),
    highlights: z.array(z.tuple([z.number().int(), z.number().int()])).describe("The matched parts of `snippet`, as [start, end) offsets in UTF-16 code units."),
  })
  .meta({ id: "MessageHit" });

export const SearchPageSchema = z.object({ items: z.array(MessageHitSchema), nextCursor: z.string().nullable() }).meta({ id: "SearchPage" });

export const ListRunsQuerySchema = z.object({ cursor: cursorField, limit: limitField(100, 30) });

export const RunSchema = z
  .object({
    taskId: z.uuid().describe("The run's server id (`/api/v1/agent/runs/{taskId}`)."),
    runId: z.string().describe("The client's runId."),
    threadId: z.uuid(),
    status: z.enum(["queued", "running", "completed", "failed", "cancelled"]),
    protocol: z.string(),
    runner: z.string(),
    model: z.string().nullable(),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
    durationMs: z.number().nullable(),
    deadlineAt: z.iso.datetime(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    usage: z.record(z.string(), z.unknown()).nullable().describe("Token usage, once the run has ended."),
  })
  .meta({ id: "Run" });

export const RunPageSchema = z.object({ items: z.array(RunSchema), nextCursor: z.string().nullable() }).meta({ id: "RunPage" });

export type ThreadWire = z.infer<typeof ThreadSchema>;
export type MessageHitWire = z.infer<typeof MessageHitSchema>;
