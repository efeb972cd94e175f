package io.servicehooks.core;

/** {@link Deduplicator#none()}: claims always succeed and nothing is remembered. */
enum NoDeduplicator implements Deduplicator {
  INSTANCE;

  @Override
  public boolean tryClaim(String key) {
    return true;
  }

  @Override
  public void markDone(String key) {}

  @Override
  public void release(String key) {}

  @Override
  public boolean mayBlock() {
    return false;
  }
}
