package io.servicehooks.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Moves the rest of a delivery from a thread that must not block to the listener executor. The
 * request is answered whatever happens there: with the work's own answer, 500 if the work throws,
 * or 503 (its claims released) if the executor refuses it.
 */
final class HandOff {

  private final DedupGate gate;
  private final Answers answers;

  HandOff(DedupGate gate, Answers answers) {
    this.gate = gate;
    this.answers = answers;
  }

  /** Runs {@code work} on {@code executor}; if it refuses, releases {@code claims}, answers 503. */
  CompletableFuture<WebhookResponse> run(
      Executor executor,
      long start,
      Supplier<CompletableFuture<WebhookResponse>> work,
      List<DedupGate.Claim> claims) {
    CompletableFuture<WebhookResponse> result = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            try {
              work.get().whenComplete((response, error) -> result.complete(response));
            } catch (RuntimeException | Error unexpected) {
              // Listeners' own failures are caught by the Dispatcher; this is the store or a bug.
              // The request must still be answered, never left hanging.
              result.complete(answers.internalError(unexpected, start));
              if (unexpected instanceof VirtualMachineError vmError) {
                throw vmError;
              }
            }
          });
    } catch (RejectedExecutionException busy) {
      gate.releaseAll(claims);
      return answers.done(
          Answers.reject(503, "rejected", "busy", "no thread free to run listeners, retry later"),
          start);
    }
    return result;
  }

  @Override
  public String toString() {
    return "HandOff";
  }
}
