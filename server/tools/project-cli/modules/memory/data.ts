import "server-only";
import { z } from "zod";

// The data memory methods return, read back by the post-processor to build ui_hints.

export const memoryFactDataSchema = z.object({ key: z.string(), value: z.string(), updated_at: z.string() });

export const memoryReadDataSchema = z.object({ facts: z.array(memoryFactDataSchema), count: z.number() });

export const memoryUpdateDataSchema = z.object({
  written: z.array(memoryFactDataSchema),
  forgotten: z.array(z.string()),
  not_found: z.array(z.string()),
});

export type MemoryFactData = z.infer<typeof memoryFactDataSchema>;
export type MemoryReadData = z.infer<typeof memoryReadDataSchema>;
export type MemoryUpdateData = z.infer<typeof memoryUpdateDataSchema>;
