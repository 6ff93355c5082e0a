import { describe, expect, it } from "vitest";
import { chunkDocument, headingsOf, MAX_CHUNK_CHARS, normalizeDocumentText, OVERLAP_CHARS, type KnowledgeMimeType } from "./chunking";

const chunk = (text: string, mimeType: KnowledgeMimeType = "text/markdown") => chunkDocument({ text: normalizeDocumentText(text), mimeType });

// Distinct, countable words: "w<section>x<n>" never occurs twice.
const sentence = (tag: string, n: number) => `The ${tag}x${n} item is described here in a few plain words.`;
const paragraph = (tag: string, from: number, count: number) => Array.from({ length: count }, (_, i) => sentence(tag, from + i)).join(" ");
const wordsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

describe("chunkDocument", () => {
  it("keeps the heading path of each chunk, in its content and in its headings", () => {
    const section = (heading: string, tag: string, count = 10) => `${heading}\n\n${paragraph(tag, 0, count)}`;
    const md = [section("# Guide", "intro", 8), section("## Install", "install"), section("### Linux", "linux"), section("## Configure", "configure")].join("\n\n");
    const chunks = chunk(md);
    const byTag = (tag: string) => chunks.find((c) => c.body.includes(`${tag}x0`))!;
    expect(byTag("intro").headings).toEqual(["Guide"]);
    expect(byTag("install").headings).toEqual(["Guide", "Install"]);
    expect(byTag("linux").headings).toEqual(["Guide", "Install", "Linux"]);
    expect(byTag("configure").headings).toEqual(["Guide", "Configure"]);
    expect(byTag("linux").content.startsWith("# Guide\n## Install\n### Linux\n\n")).toBe(true);
    for (const c of chunks) expect(headingsOf(c.content)).toEqual(c.headings);
    expect(chunks.map((c) => c.ord)).toEqual(chunks.map((_, i) => i));
  });

  it("packs paragraphs up to the size limit and never cuts inside a word", () => {
    const text = Array.from({ length: 12 }, (_, p) => paragraph(`p${p}`, 0, 5 + (p % 4) * 6)).join("\n\n");
    const chunks = chunk(text, "text/plain");
    expect(chunks.length).toBeGreaterThan(3);
    const known = new Set(wordsOf(text));
    for (const c of chunks) {
      expect(c.body.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      // Every word at a chunk's edges is a whole word of the document.
      const words = wordsOf(c.body);
      expect(known.has(words[0]!), `starts with ${words[0]}`).toBe(true);
      expect(known.has(words.at(-1)!), `ends with ${words.at(-1)}`).toBe(true);
    }
    // Between the first and the last chunk, all but the last are reasonably full.
    for (const c of chunks.slice(0, -1)) expect(c.body.length).toBeGreaterThan(400);
    // Nothing is lost.
    const covered = new Set(chunks.flatMap((c) => wordsOf(c.body)));
    for (const w of known) expect(covered.has(w), w).toBe(true);
  });

  it("splits a long paragraph at sentence ends and repeats the last sentence(s) as overlap", () => {
    const text = paragraph("long", 0, 80);
    const chunks = chunk(text, "text/plain");
    expect(chunks.length).toBeGreaterThan(3);
    for (const [i, c] of chunks.entries()) {
      expect(c.body.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(c.body.endsWith(".")).toBe(true);
      expect(c.body.startsWith("The ")).toBe(true);
      if (i === 0) continue;
      // The chunk starts with whole sentences from the end of the previous one.
      const prev = chunks[i - 1]!.body;
      const sentences = c.body.split(/(?<=\.) /);
      const repeated = Math.max(...sentences.map((_, n) => (prev.endsWith(sentences.slice(0, n + 1).join(" ")) ? n + 1 : 0)));
      expect(repeated).toBeGreaterThan(0);
      expect(sentences.slice(0, repeated).join(" ").length).toBeLessThanOrEqual(OVERLAP_CHARS);
    }
  });

  it("starts a new chunk at a heading once the current one can stand alone, and merges tiny sections", () => {
    const tiny = ["# A", "alpha text.", "## B", "beta text.", "## C", "gamma text."].join("\n\n");
    const [only, ...rest] = chunk(tiny);
    expect(rest).toEqual([]);
    expect(only!.headings).toEqual(["A"]);
    expect(only!.headingText.split("\n")).toEqual(["A", "B", "C"]);
    expect(only!.body).toContain("## B\n\nbeta text.");

    const long = ["# A", paragraph("a", 0, 8), "# B", paragraph("b", 0, 8)].join("\n\n");
    expect(chunk(long).map((c) => c.headings)).toEqual([["A"], ["B"]]);
  });

  it("reads fenced code, setext headings and front matter as Markdown does", () => {
    const md = ["---", "title: Notes", "---", "Setup", "=====", "", "```sh", "# a shell comment, not a heading", "npm ci", "```", "", "Usage", "-----", "", "Run it."].join("\n");
    const chunks = chunk(md);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.body).toContain("title: Notes");
    expect(chunks[0]!.body).toContain("# a shell comment, not a heading");
    expect(chunks[0]!.headingText.split("\n")).toEqual(["Setup", "Usage"]);
  });

  it("treats plain text literally: no headings, content is the text", () => {
    const chunks = chunk("# not a heading in plain text\n\nSecond paragraph.", "text/plain");
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.headings).toEqual([]);
    expect(chunks[0]!.content).toBe("# not a heading in plain text\n\nSecond paragraph.");
  });

  it("splits Chinese text at sentence punctuation and unbroken text at the limit", () => {
    const zh = "知识库的检索功能非常强大。".repeat(300);
    const chunks = chunk(zh, "text/plain");
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.body.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(c.body.startsWith("知识库")).toBe(true);
      expect(c.body.endsWith("。")).toBe(true);
    }
    const blob = chunk("x".repeat(3000), "text/plain");
    expect(blob.map((c) => c.body.length)).toEqual([1200, 1200, 600]);
  });

  it("normalizes line endings and byte order marks, and finds nothing in blank text", () => {
    expect(chunk("\uFEFFline one\r\n\r\nline two\r\n", "text/plain").map((c) => c.body)).toEqual(["line one\n\nline two"]);
    expect(chunk(" \n\n\t\n", "text/markdown")).toEqual([]);
  });
});
