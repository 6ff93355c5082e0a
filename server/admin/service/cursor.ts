import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";

// Keyset cursors for the console's newest-first lists: the last row's timestamp and id,
// opaque to the browser so the ordering can change without breaking old links.

const cursorSchema = z.tuple([z.iso.datetime(), z.uuid()]);

export type KeysetCursor = { at: Date; id: string };

export function encodeCursor({ at, id }: KeysetCursor): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString("base64url");
}

export function decodeCursor(raw: string | undefined): KeysetCursor | null {
  if (raw === undefined) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    json = null;
  }
  const parsed = cursorSchema.safeParse(json);
  if (!parsed.success) throw new AppError("BAD_REQUEST", "Invalid cursor: ask for the first page again");
  return { at: new Date(parsed.data[0]), id: parsed.data[1] };
}

/** Splits a `limit + 1` result into a page and the cursor of the next one. */
export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => KeysetCursor): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : null };
}
