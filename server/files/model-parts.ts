import type { FilePart, ImagePart, TextPart } from "ai";
import type { RunFile } from "./run-files";

// How a user message's attachments reach a model. Images are image parts. A document is an
// AI SDK file part when the model declares that it takes files of its type (catalog.ts,
// `files`), announced by a text part with its name (providers turn text/* file parts into bare
// text); otherwise it is a text part: "File: <name>", then its text (unpdf's text of a PDF),
// capped so one large document cannot fill the model's context.

export const MAX_DOCUMENT_TEXT_CHARS = 100_000;

/** The document's text for a model without file parts: its name, then its text, truncated with a note. */
export function documentTextPart(document: { fileName: string; text: string }): string {
  const chars = [...document.text];
  const body = chars.length === 0 ? "(no text could be extracted from this file)" : chars.slice(0, MAX_DOCUMENT_TEXT_CHARS).join("");
  const note =
    chars.length > MAX_DOCUMENT_TEXT_CHARS
      ? `\n[truncated: the first ${MAX_DOCUMENT_TEXT_CHARS.toLocaleString("en")} of ${chars.length.toLocaleString("en")} characters]`
      : "";
  return `File: ${document.fileName}\n${body}${note}`;
}

export function runFileParts(files: readonly RunFile[], opts: { fileTypes: readonly string[] }): (TextPart | ImagePart | FilePart)[] {
  return files.flatMap((file): (TextPart | ImagePart | FilePart)[] => {
    if (!file.document) return [{ type: "image", image: file.data, mediaType: file.mimeType }];
    if (!opts.fileTypes.includes(file.mimeType)) return [{ type: "text", text: documentTextPart(file.document) }];
    return [
      { type: "text", text: `File: ${file.document.fileName}` },
      { type: "file", data: file.data, mediaType: file.mimeType, filename: file.document.fileName },
    ];
  });
}
