"use client";

// What a page shows when rendering it failed (most often: the database is unavailable). In
// production Next replaces the error's message with a digest, so nothing internal reaches the
// page; the digest is what an operator finds in the server log.
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="chat-empty" data-testid="page-error" role="alert">
      <h1>This page is unavailable right now</h1>
      <p className="muted">Dispatch could not load it, usually because its database is briefly unreachable. Try again in a few seconds.</p>
      {error.digest ? <p className="muted">Reference: {error.digest}</p> : null}
      <button type="button" className="btn btn-primary" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
