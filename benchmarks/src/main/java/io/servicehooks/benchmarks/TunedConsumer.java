package io.servicehooks.benchmarks;

import io.servicehooks.samples.ConsumerMain;
import io.servicehooks.samples.DatabaseSettings;
import io.servicehooks.samples.StandaloneConsumer;
import java.util.List;
import java.util.Map;

/**
 * The standalone consumer of {@code servicehooks-consumer.jar}, started in-process so that a no-op
 * listener can be added: {@code IO_THREADS}, {@code WORKER_THREADS} (0 or unset: the jar's
 * defaults), {@code LISTENER_MODE=worker|inline}, {@code PORT}, {@code SERVICE_CONSUMER_SECRET},
 * {@code NOOP_LISTENER=true} (one listener that does nothing, so worker mode hands each new event
 * off), {@code FAIL_PERCENT} (a listener that throws in that share of its runs: the soak's 1%),
 * {@code REDIS_URL} and {@code REDIS_PREFIX} (dedup on Redis, as in the jar), and the consumer
 * jar's {@code DATABASE_URL} settings (durable mode, as the jar reads them). Events are not logged;
 * bound to 127.0.0.1.
 *
 * <p>{@code IO_THREADS=1 PORT=18080 java -cp benchmarks.jar
 * io.servicehooks.benchmarks.TunedConsumer}
 */
public final class TunedConsumer {

  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private TunedConsumer() {}

  /** The variable, or the consumer jar's own default when it is unset or 0. */
  private static int threads(Map<String, String> env, String name, int fallback) {
    int n = Integer.parseInt(env.getOrDefault(name, "0"));
    return n > 0 ? n : fallback;
  }

  public static void main(String[] args) {
    Map<String, String> env = System.getenv();
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(
                List.of(BaselineEnv.secret()),
                "127.0.0.1",
                BaselineEnv.port(),
                env.getOrDefault("WEBHOOK_PATH", "/webhooks"),
                env.getOrDefault("LISTENER_MODE", "worker").equals("inline"),
                false,
                threads(env, "IO_THREADS", ConsumerMain.defaultIoThreads(CORES)),
                threads(env, "WORKER_THREADS", ConsumerMain.defaultWorkerThreads(CORES)))
            .withRedis(env.get("REDIS_URL"), env.get("REDIS_PREFIX"));
    boolean noopListener = Boolean.parseBoolean(env.getOrDefault("NOOP_LISTENER", "false"));
    int failPercent = Integer.parseInt(env.getOrDefault("FAIL_PERCENT", "0"));
    StandaloneConsumer consumer =
        StandaloneConsumer.start(
            settings,
            DatabaseSettings.fromEnvironment(env),
            b -> {
              if (noopListener) {
                b.onAny(event -> {}); // something to run, so worker mode hands every new event off
              }
              if (failPercent > 0) {
                // The soak's failing listeners: each run fails with this chance, so a retry
                // succeeds.
                b.onAny(
                    event -> {
                      if (java.util.concurrent.ThreadLocalRandom.current().nextInt(100)
                          < failPercent) {
                        throw new IllegalStateException("FAIL_PERCENT (a rehearsal)");
                      }
                    });
              }
            });
    Runtime.getRuntime().addShutdownHook(new Thread(consumer::close, "tuned-consumer-shutdown"));
    System.out.println("tuned consumer " + settings);
  }
}
