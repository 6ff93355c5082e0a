// Runs once when a server instance starts: close the runs a stopped server left open.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./server/env");
  if (!env.DATABASE_URL) return;
  const { startRecoverySweeper } = await import("./server/runs/recovery");
  startRecoverySweeper();
}
