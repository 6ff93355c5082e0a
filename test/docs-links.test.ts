import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, checkProjectMarkdown, codePaths, headingSlug, linkTargets } from "./markdown-links";

// The docs a reader follows lead somewhere: every relative link in the repository's Markdown
// (README.md, ARCHITECTURE.md, docs/**/*.md and the rest) names a file that exists (and a heading
// of it, for an #anchor), and every backticked repository path (`server/runs/recovery.ts`,
// `docs/`) exists.

const root = path.resolve(import.meta.dirname, "..");

describe("the repository's Markdown", () => {
  it("links only to files and headings that exist, and names only paths that exist", () => {
    const problems = checkProjectMarkdown(root).map((p) => `${p.file}:${p.line}: ${p.message}`);
    expect(problems).toEqual([]);
  });
});

describe("the checker", () => {
  it("makes anchors as GitHub does", () => {
    expect(headingSlug("The life of a run")).toBe("the-life-of-a-run");
    expect(headingSlug("`project_cli` at run time")).toBe("project_cli-at-run-time");
    expect(headingSlug("Seed endpoint: `POST /api/v1/agent/runs`")).toBe("seed-endpoint-post-apiv1agentruns");
    expect(headingSlug("Durable runs: who executes a run, and the queue engine (issue #25)")).toBe("durable-runs-who-executes-a-run-and-the-queue-engine-issue-25");
    expect(headingSlug("[Links](x.md) and **bold** 中文")).toBe("links-and-bold-中文");
    expect([...anchorsOf("# A\n## A\n```\n# not a heading\n```\n### B ###\n")]).toEqual(["a", "a-1", "b"]);
  });

  it("reads links outside code spans, and repository paths inside them", () => {
    expect(linkTargets("see [a](docs/a.md#x), ![i](img.png \"t\") and `[not](a link)`")).toEqual(["docs/a.md#x", "img.png"]);
    expect(linkTargets("[ref]: ../b.md")).toEqual(["../b.md"]);
    expect(codePaths("`spec/foo.md`, `server/x/y.ts:12`, `test/clients/`, `../sdk/README.md`")).toEqual(["spec/foo.md", "server/x/y.ts", "test/clients/", "../sdk/README.md"]);
    // Not paths: routes, media types, packages, placeholders, patterns, bare file names.
    expect(codePaths("`/api/v1/ag-ui`, `text/event-stream`, `@ag-ui/core`, `app/<path>/route.ts`, `docs/*.md`, `a/{b,c}.ts`, `route.ts`")).toEqual([]);
  });

  it("reports a missing file or anchor, a missing backticked path and one outside the repository, and ignores code blocks", () => {
    // A repository in a folder that also holds a file beside it, outside the repository.
    const outer = mkdtempSync(path.join(tmpdir(), "docs-links-"));
    const dir = path.join(outer, "repo");
    mkdirSync(path.join(dir, "docs"), { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    writeFileSync(path.join(outer, "beside.md"), "# Beside\n");
    writeFileSync(path.join(dir, "README.md"), "# Top\n[ok](docs/a.md#part-one) [gone](docs/b.md) [no anchor](docs/a.md#part-two) [self](#top)\n");
    writeFileSync(path.join(dir, "docs/a.md"), "## Part one\nSee `spec/x.md` and [up](../README.md#top).\n```\n[in code](nowhere.md) `spec/y.md`\n```\n[out](../../beside.md) `../../beside.md`\n");
    expect(checkProjectMarkdown(dir).map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([
      "README.md:2: link to docs/b.md: docs/b.md does not exist in the repository",
      "README.md:2: link to docs/a.md#part-two: docs/a.md has no heading with the anchor #part-two",
      "docs/a.md:2: `spec/x.md` does not exist in the repository",
      "docs/a.md:6: link to ../../beside.md: ../beside.md does not exist in the repository",
      "docs/a.md:6: `../../beside.md` does not exist in the repository",
    ]);
  });
});
