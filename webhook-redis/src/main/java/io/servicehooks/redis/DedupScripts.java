package io.servicehooks.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.servicehooks.core.Deduplicator.Claim;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's round trips to Redis, one Lua script ({@link Scripts}) on one key each: claim, claim
 * done, done, release and renew. Sends each by its SHA, sends the text when the server lost its
 * script cache, and reads the answer.
 */
final class DedupScripts {

  private static final Logger LOG = LoggerFactory.getLogger(RedisDeduplicator.class);

  /** How long past the command time-out a call is failed by this class when Lettuce has not. */
  private static final Duration BACKSTOP_MARGIN = Duration.ofMillis(200);

  private final RedisClusterAsyncCommands<String, String> commands;
  private final BatchedWrites batches;
  private final boolean lettuceTimesOut;
  private final Duration commandTimeout;
  private final AtomicBoolean closed;
  private final SecretScrubber secrets;
  private final String storeName;
  private final Script claimScript;
  private final Script claimDoneScript;
  private final Script doneScript;
  private final Script releaseScript;
  private final Script renewScript;

  /**
   * @param lettuceTimesOut whether the client's own options time out each command (a client this
   *     store built); otherwise the stage is failed shortly after {@code commandTimeout} here
   * @param closed set when the store is closed; calls then fail at once
   * @param storeName what a call on a closed store names in its failure
   * @param batches sends the scripts in batches; null: each at once through {@code commands}
   */
  DedupScripts(
      RedisClusterAsyncCommands<String, String> commands,
      BatchedWrites batches,
      boolean lettuceTimesOut,
      Duration commandTimeout,
      AtomicBoolean closed,
      SecretScrubber secrets,
      String storeName) {
    this.commands = commands;
    this.batches = batches;
    this.lettuceTimesOut = lettuceTimesOut;
    this.commandTimeout = commandTimeout;
    this.closed = closed;
    this.secrets = secrets;
    this.storeName = storeName;
    this.claimScript = new Script(Scripts.CLAIM, commands.digest(Scripts.CLAIM));
    this.claimDoneScript = new Script(Scripts.CLAIM_DONE, commands.digest(Scripts.CLAIM_DONE));
    this.doneScript = new Script(Scripts.DONE_SCRIPT, commands.digest(Scripts.DONE_SCRIPT));
    this.releaseScript = new Script(Scripts.RELEASE, commands.digest(Scripts.RELEASE));
    this.renewScript = new Script(Scripts.RENEW, commands.digest(Scripts.RENEW));
  }

  /** {@code SET NX PX} of the token; the raw answer, read by {@link #toClaim}. */
  CompletableFuture<List<Object>> claim(String redisKey, String token, long leaseMillis) {
    return run(
        claimScript,
        ScriptOutputType.MULTI,
        redisKey,
        Scripts.CLAIMED + token,
        Long.toString(leaseMillis));
  }

  /** {@code SET NX PX} of the done value; the raw answer, read by {@link #toClaim}. */
  CompletableFuture<List<Object>> claimDone(String redisKey, long windowMillis) {
    return run(claimDoneScript, ScriptOutputType.MULTI, redisKey, Long.toString(windowMillis));
  }

  /** Marks the token's key done for the window; 1 owned, 0 missing, -1 another value. */
  CompletableFuture<Long> done(String redisKey, String token, long windowMillis) {
    return run(
        doneScript,
        ScriptOutputType.INTEGER,
        redisKey,
        Scripts.CLAIMED + token,
        Long.toString(windowMillis));
  }

  /** Deletes the token's key; 1 owned, 0 missing, -1 another value. */
  CompletableFuture<Long> release(String redisKey, String token) {
    return run(releaseScript, ScriptOutputType.INTEGER, redisKey, Scripts.CLAIMED + token);
  }

  /** Gives the token's key the lease as TTL; 1 owned, 0 missing, -1 another value. */
  CompletableFuture<Long> renew(String redisKey, String token, long leaseMillis) {
    return run(
        renewScript,
        ScriptOutputType.INTEGER,
        redisKey,
        Scripts.CLAIMED + token,
        Long.toString(leaseMillis));
  }

  /** The claim script's answer as the SPI's claim. */
  static Claim toClaim(List<Object> answer, String token, String redisKey) {
    if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long claimed)) {
      throw new IllegalStateException("unexpected answer of the claim script: " + answer);
    }
    if (claimed == 1L) {
      return Claim.claimed(token);
    }
    Object value = answer.size() > 1 ? answer.get(1) : null;
    long pttl = answer.size() > 2 && answer.get(2) instanceof Long l ? l : -1;
    if (Scripts.DONE.equals(value)) {
      return Claim.done();
    }
    if (value instanceof String s && s.startsWith(Scripts.CLAIMED)) {
      return Claim.runningElsewhere(pttl > 0 ? Duration.ofMillis(pttl) : Duration.ZERO);
    }
    throw new IllegalStateException(
        "key "
            + RedisDeduplicator.printable(redisKey)
            + " holds a value this store did not write; is the prefix used by something else?");
  }

  /** Whether a done, release or renew answer says the token owned the key; logs when it did not. */
  static boolean owned(Long n, String redisKey, String operation) {
    boolean owns = n != null && n == 1L;
    if (!owns) {
      // The core tells a lost key from a lease that ran out by its timing; this line says
      // what Redis held instead.
      LOG.debug(
          "{} of {}: the token no longer owns the key, which {}",
          operation,
          RedisDeduplicator.printable(redisKey),
          n != null && n == 0L ? "is missing" : "another owner holds (or marked done)");
    }
    return owns;
  }

  private <T> CompletableFuture<T> run(
      Script script, ScriptOutputType type, String redisKey, String... args) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException(storeName + " is closed"));
    }
    String[] keys = {redisKey};
    CompletableFuture<T> call;
    try {
      CompletableFuture<T> first =
          batches != null
              ? batches.send(evalsha(script.sha(), type, redisKey, args))
              : commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
      call =
          first.exceptionallyCompose(
              e -> {
                if (unwrap(e) instanceof RedisNoScriptException) {
                  // The server lost its script cache (restart, SCRIPT FLUSH): EVAL runs the
                  // script and caches it again.
                  LOG.debug("Redis had no script {}: sending it", script.sha());
                  return commands.<T>eval(script.text(), type, keys, args).toCompletableFuture();
                }
                return CompletableFuture.failedFuture(unwrap(e));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(secrets.safe(e));
    }
    if (!lettuceTimesOut) {
      // Lettuce times out commands on a client this store built; a caller's client may not: the
      // stage fails shortly after the command time-out either way.
      call = call.orTimeout(commandTimeout.plus(BACKSTOP_MARGIN).toMillis(), TimeUnit.MILLISECONDS);
    }
    return call.exceptionallyCompose(e -> CompletableFuture.failedFuture(secrets.safe(unwrap(e))));
  }

  /** {@code EVALSHA sha 1 key args...} as a command not yet sent, as Lettuce builds it. */
  @SuppressWarnings("unchecked")
  private static <T> BatchedWrites.Queued<T> evalsha(
      String sha, ScriptOutputType type, String redisKey, String... args) {
    CommandArgs<String, String> arguments =
        new CommandArgs<>(StringCodec.UTF8).add(sha).add(1).addKey(redisKey);
    for (String arg : args) {
      arguments.addValue(arg);
    }
    CommandOutput<String, String, ?> output =
        type == ScriptOutputType.INTEGER
            ? new IntegerOutput<>(StringCodec.UTF8)
            : new NestedMultiOutput<>(StringCodec.UTF8);
    return new BatchedWrites.Queued<>(
        new Command<>(CommandType.EVALSHA, (CommandOutput<String, String, T>) output, arguments));
  }

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  private record Script(String text, String sha) {}
}
