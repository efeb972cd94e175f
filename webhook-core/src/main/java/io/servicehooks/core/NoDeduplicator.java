package io.servicehooks.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@link Deduplicator#none()}: claims always succeed and nothing is remembered. */
enum NoDeduplicator implements Deduplicator {
  INSTANCE;

  private static final CompletableFuture<Claim> CLAIMED =
      CompletableFuture.completedFuture(Claim.claimed("none"));
  private static final CompletableFuture<Boolean> TRUE = CompletableFuture.completedFuture(true);

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    return CLAIMED;
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    return TRUE;
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    return TRUE;
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    return TRUE;
  }

  @Override
  public boolean mayBlock() {
    return false;
  }

  @Override
  public String toString() {
    return "NoDeduplicator";
  }
}
