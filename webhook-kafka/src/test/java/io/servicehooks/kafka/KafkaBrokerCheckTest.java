package io.servicehooks.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The broker check against a real KRaft broker, and against an address where nothing listens. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
final class KafkaBrokerCheckTest {

  private static final String JAAS_PASSWORD = "never-printed-jaas-password-3141";

  @Test
  void runningBroker_answers_thenGone_problemNamesTheServers() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.start();
    String servers = broker.bootstrapServers();
    boolean closed = false;
    try (KafkaBrokerCheck check =
        KafkaBrokerCheck.create(servers, Map.of(), Duration.ofSeconds(2), Duration.ofMillis(1))) {
      assertThat(check.awaitAnswer(Duration.ofSeconds(30))).isEmpty();
      assertThat(check.answers()).isTrue();

      broker.close();
      closed = true;

      Thread.sleep(5); // past the cache period
      assertThat(check.problem())
          .hasValueSatisfying(
              p -> assertThat(p).startsWith("no Kafka broker answered at " + servers));
    } finally {
      if (!closed) {
        broker.close();
      }
    }
  }

  @Test
  void nothingListening_boundedWait_problemWithoutClientPropertyValues() throws Exception {
    String nobody;
    try (ServerSocket socket = new ServerSocket(0)) {
      nobody = "127.0.0.1:" + socket.getLocalPort();
    }
    Map<String, String> sasl =
        Map.of(
            "security.protocol", "SASL_PLAINTEXT",
            "sasl.mechanism", "PLAIN",
            "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"u\" password=\""
                    + JAAS_PASSWORD
                    + "\";");
    try (KafkaBrokerCheck check =
        KafkaBrokerCheck.create(nobody, sasl, Duration.ofSeconds(1), Duration.ofSeconds(5))) {
      long started = System.nanoTime();
      var problem = check.awaitAnswer(Duration.ofSeconds(3));
      assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(30));
      assertThat(problem).isPresent();
      assertThat(problem.get()).contains(nobody).doesNotContain(JAAS_PASSWORD);
      assertThat(check.answers()).isFalse(); // the cached answer
    }
  }

  @Test
  void problem_keptForTheCachePeriod_checkedAgainAfterIt() throws Exception {
    String nobody;
    try (ServerSocket socket = new ServerSocket(0)) {
      nobody = "127.0.0.1:" + socket.getLocalPort();
    }
    long[] now = {0};
    try (KafkaBrokerCheck check =
        KafkaBrokerCheck.create(
            nobody, Map.of(), Duration.ofSeconds(1), Duration.ofSeconds(5), () -> now[0])) {
      var first = check.problem();
      assertThat(first).isPresent();

      now[0] += Duration.ofSeconds(4).toNanos();
      assertThat(check.problem()).isSameAs(first); // the cached answer, no new call

      now[0] += Duration.ofSeconds(2).toNanos();
      var again = check.problem();
      assertThat(again).isNotSameAs(first).isPresent(); // checked again
    }
  }
}
