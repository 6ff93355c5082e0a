import "server-only";
import { extractText } from "unpdf";
import { logger } from "../logger";
import { decodeUtf8Text, type DocumentMimeType } from "./document-type";

// A document's text for models that take no file parts: a PDF's text layer through unpdf
// (pdf.js, no native code), a text file decoded as the UTF-8 its upload was checked to be.
// A PDF with no text layer (a scan) yields an empty string: there is nothing to read without OCR.

export async function extractDocumentText(data: Uint8Array, mimeType: DocumentMimeType): Promise<string> {
  if (mimeType !== "application/pdf") return decodeUtf8Text(data) ?? "";
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
    const { text } = await extractText(new Uint8Array(data), { mergePages: true });
    return text.trim();
  } catch (err) {
    // A file that starts as a PDF but that pdf.js cannot read (damaged, encrypted): the model is
    // told there is no text, rather than the document silently missing from the message.
    logger.warn({ reason: err instanceof Error ? err.name : typeof err }, "PDF text extraction failed");
    return "";
  }
}
