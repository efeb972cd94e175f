package io.servicehooks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stall of a Redis the test started itself that lasts until the test ends it: {@code CLIENT PAUSE
 * ... WRITE} holds the store's scripts (they may write) in the server, to run in order when the
 * pause ends, while the test's own {@code CLIENT UNPAUSE} and reads still pass. A pause that ended
 * by itself after a fixed time would race a loaded machine; this one is long and ended on cue.
 */
final class WritesPause {

  private static final Duration LONGEST = Duration.ofSeconds(60);
  private static final Pattern CALLS = Pattern.compile("calls=(\\d+)");

  private WritesPause() {}

  /** Holds every script sent from now until {@link #end}, for at most a minute. */
  static void start(StatefulRedisConnection<String, String> admin) {
    String answer =
        admin
            .sync()
            .dispatch(
                CommandType.CLIENT,
                new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8)
                    .add("PAUSE")
                    .add(LONGEST.toMillis())
                    .add("WRITE"));
    assertThat(answer).isEqualTo("OK");
  }

  /** Ends the pause: the held scripts run now, in the order they were sent. */
  static void end(StatefulRedisConnection<String, String> admin) {
    String answer =
        admin
            .sync()
            .dispatch(
                CommandType.CLIENT,
                new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
    assertThat(answer).isEqualTo("OK");
  }

  /** How many scripts Redis has run ({@code EVALSHA} and {@code EVAL}), held ones once they ran. */
  static long scriptsRun(StatefulRedisConnection<String, String> admin) {
    long calls = 0;
    for (String line : admin.sync().info("commandstats").split("\\R")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        Matcher m = CALLS.matcher(line);
        if (m.find()) {
          calls += Long.parseLong(m.group(1));
        }
      }
    }
    return calls;
  }
}
