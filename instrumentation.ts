// Runs once when a server instance starts (server/start-up.ts, Node.js runtime only): closes the
// runs a stopped server left open, and hands scripts/start-server.mjs the routes it serves itself.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startUp } = await import("./server/start-up");
    await startUp();
  }
}
