package io.servicehooks.benchmarks;

import io.servicehooks.samples.StandaloneConsumer;
import java.util.List;
import java.util.Map;

/**
 * The standalone consumer of {@code servicehooks-consumer.jar}, started with the thread counts the
 * jar does not expose yet, to choose its defaults from measurements: {@code IO_THREADS},
 * {@code WORKER_THREADS} (0 or unset: Undertow's default), {@code LISTENER_MODE=worker|inline},
 * {@code PORT}, {@code SERVICE_CONSUMER_SECRET}. Events are not logged; bound to 127.0.0.1.
 *
 * <p>{@code IO_THREADS=1 PORT=18080 java -cp benchmarks.jar io.servicehooks.benchmarks.TunedConsumer}
 */
public final class TunedConsumer {

  private TunedConsumer() {}

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
            Integer.parseInt(env.getOrDefault("IO_THREADS", "0")),
            Integer.parseInt(env.getOrDefault("WORKER_THREADS", "0")));
    StandaloneConsumer consumer = StandaloneConsumer.start(settings, b -> {});
    Runtime.getRuntime().addShutdownHook(new Thread(consumer::close, "tuned-consumer-shutdown"));
    System.out.println("tuned consumer " + settings);
  }
}
