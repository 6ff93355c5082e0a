// Commit subjects are at most 72 characters, the detail in the body (git shortlogs, GitHub and
// most tools cut a longer line). Two uses:
//   node scripts/check-commit-subjects.mjs --message-file F   the commit-msg hook (.githooks/)
//   node scripts/check-commit-subjects.mjs                     CI: every commit since the rule began
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX = 72;
// The last commit made before this rule; older subjects are history and stay as they are.
const RULE_BEGAN = "d661665";

function subjectOf(message) {
  return message.split("\n").find((line) => line.trim() !== "" && !line.startsWith("#")) ?? "";
}

function problem(subject) {
  if (subject.trim() === "") return "the subject is empty";
  if ([...subject].length > MAX) return `the subject has ${[...subject].length} characters (at most ${MAX}): move the detail into the body`;
  return null;
}

function git(args) {
  return execFileSync("git", args, { encoding: "utf8" });
}

const fileArg = process.argv.indexOf("--message-file");
if (fileArg !== -1) {
  const subject = subjectOf(readFileSync(process.argv[fileArg + 1], "utf8"));
  const why = problem(subject);
  if (why) {
    console.error(`commit-msg: ${why}\n  ${subject}`);
    process.exit(1);
  }
  process.exit(0);
}

let range;
try {
  git(["cat-file", "-e", `${RULE_BEGAN}^{commit}`]);
  range = [`${RULE_BEGAN}..HEAD`];
} catch {
  range = ["-20", "HEAD"]; // a shallow clone without the rule's first commit: its last 20
}
const lines = git(["log", "--no-merges", "--format=%h%x09%s", ...range]).split("\n").filter(Boolean);
const bad = lines.map((l) => l.split("\t")).filter(([, s]) => problem(s));
for (const [hash, subject] of bad) console.error(`${hash}: ${problem(subject)}\n  ${subject}`);
console.log(`commit subjects: ${lines.length - bad.length} of ${lines.length} within ${MAX} characters`);
process.exit(bad.length ? 1 : 0);
