// What the chat may attach: images and the document types the server accepts (docs/attachments.md).

const DOCUMENT_TYPES = new Set(["application/pdf", "text/plain", "text/markdown", "text/csv", "application/json"]);

// What the file input offers: images and the document types, by type and by extension (browsers
// know .md and .csv by name only).
export const ATTACHABLE_TYPES = "image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,text/markdown,text/csv,application/json,.pdf,.txt,.md,.markdown,.csv,.json";

const EXTENSION_TYPES: Record<string, string> = { pdf: "application/pdf", txt: "text/plain", md: "text/markdown", markdown: "text/markdown", csv: "text/csv", json: "application/json" };

/** A picked file's type as the server knows it: its own when the browser gave one, else by its extension. */
export function attachmentType(file: { name: string; type: string }): string {
  if (file.type && file.type !== "application/octet-stream") return file.type;
  const ext = file.name.slice(file.name.lastIndexOf(".") + 1).toLowerCase();
  return EXTENSION_TYPES[ext] ?? file.type;
}

export const isDocumentType = (mimeType: string | undefined): boolean => mimeType !== undefined && DOCUMENT_TYPES.has(mimeType);

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(size < 10 * 1024 ? 1 : 0)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}
