import path from "node:path";
import { loadBundle } from "./load-bundle";

// The project_cli executable the server spawns (bundled to bin/project-cli.cjs by
// scripts/build-cli.mjs, beside the CLI bundle and its code cache):
//   node bin/project-cli.cjs [--time-zone <IANA zone>] -- <module> <method> < input.json
// It only loads the CLI (cli.ts) with the code cache and hands it the arguments.

// The output is CommonJS, where __dirname is the bin/ folder holding all three files.
const { exports: cli } = loadBundle(path.join(__dirname, "project-cli.bundle.cjs"), path.join(__dirname, "project-cli.bundle.cache"));
void cli.main(process.argv.slice(2));
