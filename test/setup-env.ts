import { inject } from "vitest";

// Runs before each test file's imports, so server/env.ts sees the test database.
process.env.DATABASE_URL = inject("databaseUrl");
process.env.AUTH_SECRET = inject("authSecret");
process.env.DATA_DIR = inject("dataDir");
// The example runners the tests register listen on loopback, which is refused unless allowed.
process.env.RUNNER_ALLOWED_HOSTS = "127.0.0.1";
// Tests provoke errors on purpose; their log lines would bury real failures.
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? "silent";
