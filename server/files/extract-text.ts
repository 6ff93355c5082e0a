import "server-only";
import { extractText } from "unpdf";
import { decodeUtf8Text, type DocumentMimeType } from "./document-type";

// A document's text for models that take no file parts: a PDF's text layer through unpdf
// (pdf.js, no native code), a text file decoded as the UTF-8 its upload was checked to be.
// A PDF with no text layer (a scan) yields an empty string: there is nothing to read without OCR.

export async function extractDocumentText(data: Uint8Array, mimeType: DocumentMimeType): Promise<string> {
  if (mimeType !== "application/pdf") return decodeUtf8Text(data) ?? "";
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const { text } = await extractText(new Uint8Array(data), { mergePages: true });
  return text.trim();
}
