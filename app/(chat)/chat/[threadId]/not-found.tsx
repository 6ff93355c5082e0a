import Link from "next/link";

export default function ThreadNotFound() {
  return (
    <div className="chat-empty" data-testid="thread-not-found">
      <h1>Chat not found</h1>
      <p className="muted">This chat does not exist, was deleted, or belongs to someone else.</p>
      <Link className="btn btn-primary" href="/chat">
        Start a new chat
      </Link>
    </div>
  );
}
