package io.servicehooks.redis;

/**
 * The five Lua scripts of the store. Each touches exactly one key ({@code KEYS[1]}), so each is
 * atomic on a standalone server and runs on the key's node in a Cluster. A key holds {@code
 * "c:<token>"} while claimed (with the lease as its TTL) and {@code "d"} once done (with the window
 * as its TTL).
 */
final class Scripts {

  private Scripts() {}

  /** The value of a done key. */
  static final String DONE = "d";

  /** The prefix of a claimed key's value; the owner token follows. */
  static final String CLAIMED = "c:";

  /**
   * {@code ARGV[1]} = {@code "c:<token>"}, {@code ARGV[2]} = lease in ms. Answers {@code {1}} when
   * claimed, else {@code {0, value, pttl}} of the key that is already there.
   */
  static final String CLAIM =
      """
      if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
        return {1}
      end
      return {0, redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}
      """;

  /**
   * {@code ARGV[1]} = window in ms: {@link #CLAIM} for an event with nothing to run, which is done
   * once claimed, so the key gets {@code "d"} and the window at once. Answers as {@link #CLAIM}.
   */
  static final String CLAIM_DONE =
      """
      if redis.call('SET', KEYS[1], 'd', 'NX', 'PX', ARGV[1]) then
        return {1}
      end
      return {0, redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}
      """;

  /**
   * {@code ARGV[1]} = {@code "c:<token>"}, {@code ARGV[2]} = window in ms. Answers 1 when the token
   * owned the key (now done for the window), 0 when the key is missing, -1 when another value holds
   * it.
   */
  static final String DONE_SCRIPT =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('SET', KEYS[1], 'd', 'PX', ARGV[2])
        return 1
      end
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return 0
      end
      return -1
      """;

  /**
   * {@code ARGV[1]} = {@code "c:<token>"}. Answers 1 when the token owned the key (now deleted), 0
   * when the key is missing, -1 when another value holds it.
   */
  static final String RELEASE =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('DEL', KEYS[1])
        return 1
      end
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return 0
      end
      return -1
      """;

  /**
   * {@code ARGV[1]} = {@code "c:<token>"}, {@code ARGV[2]} = lease in ms. Answers 1 when the token
   * owned the key (its TTL now the lease), 0 when the key is missing, -1 when another value holds
   * it.
   */
  static final String RENEW =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return 0
      end
      return -1
      """;
}
