import "server-only";
import { getPool } from "../db";

// Every statement of the files feature: a document's name and its extracted text, kept on its
// attachment row so the extraction runs once, not on every turn that carries the document.

export type DocumentRow = { fileName: string | null; mimeType: string; text: string | null };

export async function findDocument({ bucket, path }: { bucket: string; path: string }): Promise<DocumentRow | null> {
  const { rows } = await getPool().query<DocumentRow>(`select file_name as "fileName", mime_type as "mimeType", text from attachments where bucket = $1 and path = $2`, [
    bucket,
    path,
  ]);
  return rows[0] ?? null;
}

export async function saveDocumentText({ bucket, path, text }: { bucket: string; path: string; text: string }): Promise<void> {
  await getPool().query(`update attachments set text = $3 where bucket = $1 and path = $2`, [bucket, path, text]);
}
