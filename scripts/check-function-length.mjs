// Functions of at most 80 lines, or one that says why it is longer: a comment line starting with
// "Long:" right above it ("// Long: a byte-level state machine reads best with its states side
// by side"). Run by `npm run lint` over server/, scripts/, components/ and app/ (tests excepted).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

const MAX_LINES = 80;
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "server", "scripts", "components", "app"], { encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.(ts|tsx|mts)$/.test(f) && !/\.(integration-)?test\.tsx?$/.test(f) && !f.startsWith("server/generated/"));

/** The statement a function belongs to, whose leading comments may carry its reason. */
function declarationOf(node) {
  let n = node;
  while (n.parent && (ts.isVariableDeclaration(n.parent) || ts.isVariableDeclarationList(n.parent) || ts.isVariableStatement(n.parent) || ts.isExportAssignment(n.parent) || ts.isCallExpression(n.parent) || ts.isPropertyAssignment(n.parent))) n = n.parent;
  return n;
}

function hasReason(source, node) {
  const text = source.getFullText();
  const ranges = ts.getLeadingCommentRanges(text, declarationOf(node).getFullStart()) ?? [];
  return ranges.some((r) => /^\/\/\s*Long:/.test(text.slice(r.pos, r.end)));
}

const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    continue; // deleted in the work tree
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isGetAccessor(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = last - first + 1;
      if (lines > MAX_LINES && !hasReason(source, node)) {
        const name = node.name?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : "a function");
        problems.push(`${file}:${first}: ${name} has ${lines} lines (at most ${MAX_LINES}): split it into named steps, or say why above it with "// Long: ..."`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
for (const p of problems) console.error(p);
if (problems.length > 0) process.exit(1);
console.log(`function length: ${files.length} files, none over ${MAX_LINES} lines without a reason`);
