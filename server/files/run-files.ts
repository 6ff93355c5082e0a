import "server-only";
import { loadAttachmentBytes } from "../storage/attachment-bytes";
import { DOCUMENT_TYPES, isDocumentType } from "./document-type";
import { extractDocumentText } from "./extract-text";
import { findDocument, saveDocumentText } from "./repository";

// What the agent reads of a run's attachments: an image's bytes; a document's bytes, name and
// text. The text is extracted on a document's first use and kept on its attachment row, so a
// later run (a regeneration, a runner's turn) reads it instead of parsing the PDF again.

export type RunFile = {
  mimeType: string;
  data: Uint8Array;
  /** Documents only: the name it was uploaded under (or document.<ext>), and its text. */
  document?: { fileName: string; text: string };
};

/** One attachment of a run's user message, by its {bucket, path}; throws NOT_FOUND when it is gone. */
export async function loadRunFile(ref: { bucket: string; path: string }): Promise<RunFile> {
  const { mimeType, data } = await loadAttachmentBytes(ref);
  if (!isDocumentType(mimeType)) return { mimeType, data };
  const row = await findDocument(ref);
  let text = row?.text ?? null;
  if (text === null) {
    text = await extractDocumentText(data, mimeType);
    await saveDocumentText({ ...ref, text });
  }
  return { mimeType, data, document: { fileName: row?.fileName ?? `document.${DOCUMENT_TYPES[mimeType].ext}`, text } };
}
