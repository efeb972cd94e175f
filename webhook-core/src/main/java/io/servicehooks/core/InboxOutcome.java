package io.servicehooks.core;

/** What an {@link EventInbox} did with one event of a delivery it was asked to store. */
public enum InboxOutcome {
  /** The event was new and is now committed; the inbox will run its listeners. */
  STORED,
  /** A copy with the same dedup key was stored before (committed): nothing new was written. */
  DUPLICATE
}
