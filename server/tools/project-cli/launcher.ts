import { main } from "./cli";

// The entry point scripts/build-cli.mjs bundles into bin/project-cli.cjs.
void main(process.argv.slice(2));
