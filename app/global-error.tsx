"use client";

// As app/error.tsx, for a failure in the root layout itself, which replaces the whole document.
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body>
        <div data-testid="page-error" role="alert" style={{ fontFamily: "system-ui, sans-serif", maxWidth: 480, margin: "15vh auto", padding: 16 }}>
          <h1>Dispatch is unavailable right now</h1>
          <p>It could not load this page, usually because its database is briefly unreachable. Try again in a few seconds.</p>
          {error.digest ? <p>Reference: {error.digest}</p> : null}
          <button type="button" onClick={reset}>
            Try again
          </button>
        </div>
      </body>
    </html>
  );
}
