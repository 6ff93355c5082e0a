import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_TEXT_CHARS, documentTextPart, runFileParts } from "./model-parts";

const pdf = { mimeType: "application/pdf", data: new Uint8Array([1, 2, 3]), document: { fileName: "report.pdf", text: "Revenue rose" } };
const png = { mimeType: "image/png", data: new Uint8Array([9]) };

describe("a run's files for the model", () => {
  it("are file parts, named first, for a model that takes their type", () => {
    expect(runFileParts([pdf, png], { fileTypes: ["application/pdf"] })).toEqual([
      { type: "text", text: "File: report.pdf" },
      { type: "file", data: pdf.data, mediaType: "application/pdf", filename: "report.pdf" },
      { type: "image", image: png.data, mediaType: "image/png" },
    ]);
  });

  it("are their text, with their name, for a model that does not", () => {
    expect(runFileParts([pdf], { fileTypes: [] })).toEqual([{ type: "text", text: "File: report.pdf\nRevenue rose" }]);
    expect(documentTextPart({ fileName: "scan.pdf", text: "" })).toBe("File: scan.pdf\n(no text could be extracted from this file)");
  });

  it("cap a long document's text and say so", () => {
    const text = documentTextPart({ fileName: "big.txt", text: "a".repeat(MAX_DOCUMENT_TEXT_CHARS + 5) });
    expect(text.startsWith(`File: big.txt\n${"a".repeat(MAX_DOCUMENT_TEXT_CHARS)}\n[truncated:`)).toBe(true);
    expect(text).toContain("the first 100,000 of 100,005 characters]");
  });
});
