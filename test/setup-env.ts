import { inject } from "vitest";

// Runs before each test file's imports, so server/env.ts sees the test database.
process.env.DATABASE_URL = inject("databaseUrl");
process.env.AUTH_SECRET = inject("authSecret");
process.env.DATA_DIR = inject("dataDir");
// The example runners the tests register listen on loopback, which is refused unless allowed.
process.env.RUNNER_ALLOWED_HOSTS = "127.0.0.1";
// Every test reaches its servers from 127.0.0.1 and they count refusals in one database: the whole
// suite's bad keys would otherwise trip the back-off meant for one guesser. attempts.integration-test
// starts its own servers with the defaults.
process.env.CREDENTIAL_FAILURES_FREE_PER_ADDRESS = "1000000";
process.env.CREDENTIAL_FAILURES_PER_MINUTE = "1000000";
// Tests provoke errors on purpose; their log lines would bury real failures.
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? "silent";
