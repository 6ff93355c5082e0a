import { describe, expect, it } from "vitest";
import { elfBytes, exeBytes, pdfBytes } from "@/test/documents";
import { pngBytes } from "@/test/images";
import { DOCUMENT_MIME_TYPES } from "../protocols/ag-ui/run-input-rules";
import { DOCUMENT_TYPES, checkDocumentContent, normalizeDocumentType } from "./document-type";
import { extractDocumentText } from "./extract-text";
import { claimedUploadType, cleanFileName } from "./upload-type";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("document types", () => {
  it("are the ones the wire schemas name", () => {
    expect(Object.keys(DOCUMENT_TYPES).sort()).toEqual([...DOCUMENT_MIME_TYPES].sort());
  });

  it("normalise declared types, their parameters and common aliases", () => {
    expect(normalizeDocumentType("Text/CSV; charset=utf-8")).toBe("text/csv");
    expect(normalizeDocumentType("text/x-markdown")).toBe("text/markdown");
    expect(normalizeDocumentType("application/zip")).toBeNull();
  });

  it("take the name's extension as the claim only when no type was declared", () => {
    expect(claimedUploadType("application/octet-stream", "notes.md")).toBe("text/markdown");
    expect(claimedUploadType(null, "sales.csv")).toBe("text/csv");
    expect(claimedUploadType("image/png", "sales.csv")).toBe("image/png");
  });

  it("keep a file name's last segment, without control characters", () => {
    expect(cleanFileName("C:\\Users\\ana\\report\u0007.pdf")).toBe("report.pdf");
    expect(cleanFileName("../../etc/passwd")).toBe("passwd");
    expect(cleanFileName("  ")).toBeNull();
  });
});

describe("content checks", () => {
  it("accept what the bytes bear out", async () => {
    expect(await checkDocumentContent(pdfBytes("hello"), "application/pdf")).toEqual({ ok: true });
    expect(await checkDocumentContent(utf8("a,b\n1,2\n"), "text/csv")).toEqual({ ok: true });
    expect(await checkDocumentContent(utf8("\uFEFF# Título\n"), "text/markdown")).toEqual({ ok: true });
    expect(await checkDocumentContent(utf8('{"a":[1,2]}'), "application/json")).toEqual({ ok: true });
  });

  it("refuse executables, images and binary data, naming what they are", async () => {
    expect(await checkDocumentContent(elfBytes(), "application/pdf")).toMatchObject({ ok: false, detected: "application/x-elf" });
    expect(await checkDocumentContent(exeBytes(), "text/plain")).toMatchObject({ ok: false, detected: "application/x-msdownload" });
    expect(await checkDocumentContent(pngBytes(), "text/csv")).toMatchObject({ ok: false, detected: "image/png" });
    expect(await checkDocumentContent(new Uint8Array([0x61, 0x00, 0x62]), "text/plain")).toMatchObject({ ok: false, detected: "binary data" });
    expect(await checkDocumentContent(new Uint8Array([0xc3, 0x28]), "text/plain")).toMatchObject({ ok: false, detected: "binary data" });
    expect(await checkDocumentContent(utf8("a,b"), "application/pdf")).toMatchObject({ ok: false });
    expect(await checkDocumentContent(utf8("{nope"), "application/json")).toMatchObject({ ok: false, message: "The file is not valid JSON" });
  });
});

describe("text extraction", () => {
  it("reads a PDF's text layer and decodes text files", async () => {
    expect(await extractDocumentText(pdfBytes("Quarterly revenue (Q3) rose"), "application/pdf")).toBe("Quarterly revenue (Q3) rose");
    expect(await extractDocumentText(utf8("\uFEFFregion,amount\n"), "text/csv")).toBe("region,amount\n");
  });
});

describe("a damaged PDF", () => {
  it("has no text rather than failing the run", async () => {
    const broken = new TextEncoder().encode("%PDF-1.4\n1 0 obj\n<< garbage");
    expect(await extractDocumentText(broken, "application/pdf")).toBe("");
  });
});
