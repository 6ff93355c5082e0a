// The limit app's own (empty) instrumentation hook: without it, Next, whose root is the
// repository (for its node_modules), would load Dispatch's instrumentation.ts.
export function register(): void {}
