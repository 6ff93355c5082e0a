import { z } from "zod";

// Imported first by the CLI, before any schema exists. A CLI call parses each schema once, and
// zod's JIT (compiling an object parser with `new Function` on its first use) costs more than
// it can save in one parse.
z.config({ jitless: true });
