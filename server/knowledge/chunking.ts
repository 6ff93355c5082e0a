import { isCjk } from "./search-text";

// Splits a text or Markdown document into retrieval chunks.
//
// Markdown is read as blocks (ATX and setext headings, fenced code, paragraphs); the heading
// path above a chunk is its context. Chunks follow sections where they can: a new heading
// ends the current chunk once it holds a passage worth retrieving on its own (SECTION_MIN),
// otherwise small sections share a chunk. Within a section, paragraphs are packed up to
// MAX_CHUNK_CHARS; a paragraph that does not fit is carried whole to the next chunk when the
// current one is already long enough (MIN_CHUNK_CHARS), else split at the best boundary
// (line, sentence, clause, space, CJK character), never inside a word. A chunk that
// continues a section starts with the last sentence(s) of the previous one (OVERLAP_CHARS).
//
// A Markdown chunk's content starts with its heading path as Markdown heading lines, so it
// reads on its own and `headingsOf` can recover the path from the stored content alone.

export const MAX_CHUNK_CHARS = 1200;
export const MIN_CHUNK_CHARS = 800;
export const SECTION_MIN_CHARS = 400;
export const OVERLAP_CHARS = 150;

export type KnowledgeMimeType = "text/plain" | "text/markdown";

export type Heading = { level: number; text: string };

export type DocumentChunk = {
  ord: number;
  /** What is stored and returned: heading lines (Markdown), a blank line, then the body. */
  content: string;
  /** The heading path at the chunk's start, outermost first. */
  headings: string[];
  /** Every heading the chunk belongs to or contains: ranked above body words. */
  headingText: string;
  /** The chunk's own text, without the heading lines. */
  body: string;
};

type Block = { kind: "heading"; level: number; text: string } | { kind: "text"; text: string };

/** CRLF/CR to LF, no byte order mark, no trailing spaces. */
export function normalizeDocumentText(text: string): string {
  return text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+$/gm, "");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

function markdownBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let lines = text.split("\n");
  // YAML front matter is kept as a paragraph, not read as a setext heading.
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) {
      blocks.push({ kind: "text", text: lines.slice(1, end).join("\n").trim() });
      lines = lines.slice(end + 1);
    }
  }
  let paragraph: string[] = [];
  let fence: { marker: string; lines: string[] } | null = null;
  const endParagraph = () => {
    const body = paragraph.join("\n").trim();
    if (body) blocks.push({ kind: "text", text: body });
    paragraph = [];
  };
  for (const line of lines) {
    if (fence) {
      fence.lines.push(line);
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence.marker[0] && close[1]!.length >= fence.marker.length && line.trim() === close[1]) {
        blocks.push({ kind: "text", text: fence.lines.join("\n") });
        fence = null;
      }
      continue;
    }
    const open = FENCE.exec(line);
    if (open) {
      endParagraph();
      fence = { marker: open[1]!, lines: [line] };
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      endParagraph();
      const headingText = (atx[2] ?? "").trim();
      if (headingText) blocks.push({ kind: "heading", level: atx[1]!.length, text: headingText });
      continue;
    }
    const setext = SETEXT.exec(line);
    if (setext && paragraph.length > 0) {
      blocks.push({ kind: "heading", level: setext[1]![0] === "=" ? 1 : 2, text: paragraph.join(" ").trim() });
      paragraph = [];
      continue;
    }
    if (line.trim() === "" || THEMATIC_BREAK.test(line)) {
      endParagraph();
      continue;
    }
    paragraph.push(line);
  }
  // An unclosed fence runs to the end of the document, as in CommonMark.
  if (fence) blocks.push({ kind: "text", text: fence.lines.join("\n") });
  endParagraph();
  return blocks;
}

function plainBlocks(text: string): Block[] {
  return text
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => ({ kind: "text", text: p }));
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);
const isLowSurrogate = (ch: string | undefined) => ch !== undefined && ch.charCodeAt(0) >= 0xdc00 && ch.charCodeAt(0) <= 0xdfff;

// Where text may be cut, best first. `i` cuts between text[i - 1] and text[i].
const BOUNDARIES: ((text: string, i: number) => boolean)[] = [
  (t, i) => t[i] === "\n",
  (t, i) => (/[.!?…]/.test(t[i - 1]!) && isSpace(t[i])) || /[。！？]/.test(t[i - 1]!),
  (t, i) => (/[,;:)]/.test(t[i - 1]!) && isSpace(t[i])) || /[，；：、）]/.test(t[i - 1]!),
  (t, i) => isSpace(t[i]),
  (t, i) => (isCjk(t[i - 1]) || isCjk(t[i])) && !isLowSurrogate(t[i]),
];

/** The best cut in text[min..limit]: the latest boundary of the best kind available. */
function cutPoint(text: string, limit: number, min: number): number {
  const hi = Math.min(limit, text.length - 1);
  for (const isBoundary of BOUNDARIES) {
    for (let i = hi; i >= Math.max(min, 1); i--) if (isBoundary(text, i)) return i;
  }
  // One "word" longer than a chunk (a hash, a data URL): cut it, keeping surrogate pairs whole.
  return isLowSurrogate(text[limit]) ? limit - 1 : limit;
}

/** How two pieces of one cut paragraph join again: the whitespace that was at the cut. */
function joinerAt(text: string, cut: number): string {
  const gap = /^\s*/.exec(text.slice(cut, cut + 64))![0];
  return gap.includes("\n") ? "\n" : gap ? " " : "";
}

/** The end of a chunk worth repeating at the start of the next: whole sentences if possible. */
function overlapTail(body: string): string {
  if (body.length <= OVERLAP_CHARS) return "";
  const from = body.length - OVERLAP_CHARS;
  for (const isBoundary of BOUNDARIES.slice(1)) {
    for (let i = from; i < body.length - 20; i++) {
      // Never start with "#": a chunk's leading "# " lines are its heading path.
      if (isBoundary(body, i) && !/^\s*#/.test(body.slice(i, i + 8))) return body.slice(i).trim();
    }
  }
  return "";
}

class ChunkPacker {
  readonly chunks: { path: Heading[]; headingText: string; body: string }[] = [];
  private path: Heading[] = [];
  private start: Heading[] = [];
  private inline: string[] = [];
  private body = "";
  private onlyOverlap = false;

  heading(h: Heading): void {
    if (this.onlyOverlap) this.reset("");
    else if (this.body.length >= SECTION_MIN_CHARS) this.flush(false);
    this.path = [...this.path.filter((p) => p.level < h.level), h];
    if (!this.body) this.start = this.path;
    else {
      this.inline.push(h.text);
      this.append(`${"#".repeat(h.level)} ${h.text}`, "\n\n");
    }
  }

  text(paragraph: string): void {
    let rest = paragraph;
    let joiner = "\n\n";
    for (;;) {
      const sep = this.body ? joiner : "";
      const room = MAX_CHUNK_CHARS - this.body.length - sep.length;
      if (rest.length <= room) {
        this.append(rest, joiner);
        return;
      }
      if (this.body.length >= MIN_CHUNK_CHARS && !this.onlyOverlap) {
        this.flush(true);
        continue;
      }
      const cut = cutPoint(rest, room, Math.floor(room / 2));
      this.append(rest.slice(0, cut).trimEnd(), joiner);
      joiner = joinerAt(rest, cut);
      rest = rest.slice(cut).trimStart();
      this.flush(true);
      if (!rest) return;
    }
  }

  finish(): void {
    if (!this.onlyOverlap) this.flush(false);
  }

  private append(text: string, joiner: string): void {
    this.body = this.body ? this.body + joiner + text : text;
    this.onlyOverlap = false;
  }

  private flush(withOverlap: boolean): void {
    const body = this.body.trim();
    if (body) {
      this.chunks.push({ path: this.start, headingText: [...this.start.map((h) => h.text), ...this.inline].join("\n"), body });
    }
    this.reset(withOverlap ? overlapTail(body) : "");
  }

  private reset(carry: string): void {
    this.start = this.path;
    this.inline = [];
    this.body = carry;
    this.onlyOverlap = carry !== "";
  }
}

/** The chunks of a document, in order. Text should be normalized (`normalizeDocumentText`). */
export function chunkDocument({ text, mimeType }: { text: string; mimeType: KnowledgeMimeType }): DocumentChunk[] {
  const packer = new ChunkPacker();
  for (const block of mimeType === "text/markdown" ? markdownBlocks(text) : plainBlocks(text)) {
    if (block.kind === "heading") packer.heading(block);
    else packer.text(block.text);
  }
  packer.finish();
  return packer.chunks.map(({ path, headingText, body }, ord) => {
    const prefix = path.map((h) => `${"#".repeat(h.level)} ${h.text}`).join("\n");
    return { ord, headings: path.map((h) => h.text), headingText, body, content: prefix ? `${prefix}\n\n${body}` : body };
  });
}

/** The heading path a stored Markdown chunk starts with (see `chunkDocument`). */
export function headingsOf(content: string): string[] {
  const headings: string[] = [];
  for (const line of content.split("\n")) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) break;
    headings.push(m[1]!);
  }
  return headings;
}
