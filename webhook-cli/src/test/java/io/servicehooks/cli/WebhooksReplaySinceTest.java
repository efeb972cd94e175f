package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.ReplayRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code servicehooks webhooks replay --since D} in-process against the simulator, the command line
 * and the simulator sharing one fixed clock, so the window the simulator received is known to the
 * minute.
 */
final class WebhooksReplaySinceTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-05-01T12:00:30Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  private PlatformSimulator platform;
  private ConsumerStub consumer;
  private Map<String, String> env;
  private String webhookId;

  @BeforeEach
  void start() throws Exception {
    platform = PlatformSimulator.builder().localMode(true).clock(CLOCK).build().start();
    consumer = ConsumerStub.start(platform.consumerSecret());
    env =
        Map.of(
            "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
            "SERVICE_API_KEY", platform.apiKey(),
            "SERVICE_API_SECRET", platform.apiSecret());
    Cli.Run created =
        run("--json", "webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");
    assertThat(created.exitCode()).as(created.toString()).isZero();
    webhookId = JSON.readTree(created.out()).get("id").asText();
  }

  @AfterEach
  void stop() {
    consumer.close();
    platform.close();
  }

  private Cli.Run run(String... args) {
    return Cli.run(env, CLOCK, args);
  }

  @ParameterizedTest
  @CsvSource({
    // since, expected from_date minute (the to_date minute is 12:00, now being 12:00:30)
    "30m, 2026-05-01T11:30:00Z",
    "90m, 2026-05-01T10:30:00Z",
    "2h,  2026-05-01T10:00:00Z",
    "45s, 2026-05-01T11:59:00Z",
    "3600s, 2026-05-01T11:00:00Z",
    // 24 h back is 11:00:30 yesterday: the 12:00 minute would fall out of the reach a moment
    // later, so the window starts at the next whole minute
    "1d,  2026-04-30T12:01:00Z",
    "24h, 2026-04-30T12:01:00Z"
  })
  void replaySince_window_endsNowAndStartsTheRoundedDurationBefore(String since, Instant from) {
    Cli.Run run = run("webhooks", "replay", webhookId, "--since", since);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("JOB_ID", "replay_job_status");
    assertThat(platform.replayRequests())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.webhookId()).isEqualTo(webhookId);
              assertThat(job.from()).isEqualTo(from);
              assertThat(job.to()).isEqualTo(Instant.parse("2026-05-01T12:00:00Z"));
            });
  }

  @Test
  void replaySince30m_redeliversTheEventsOfTheLastHalfHourOnly() throws Exception {
    String printed;
    try (PlatformSimulator stepped =
            PlatformSimulator.builder()
                .localMode(true)
                .clock(Clock.fixed(NOW.minus(Duration.ofHours(1)), ZoneOffset.UTC))
                .build()
                .start();
        ConsumerStub receiver = ConsumerStub.start(stepped.consumerSecret())) {
      Map<String, String> steppedEnv =
          Map.of(
              "SERVICE_API_BASE_URL", stepped.baseUrl().toString(),
              "SERVICE_API_KEY", stepped.apiKey(),
              "SERVICE_API_SECRET", stepped.apiSecret());
      Cli.Run created =
          Cli.run(
              steppedEnv,
              CLOCK,
              "--json",
              "webhooks",
              "create",
              receiver.url("/webhook"),
              "--allow-insecure-url");
      String id = JSON.readTree(created.out()).get("id").asText();
      String old = Events.postCreate("1", "10", "an hour ago"); // 11:00:30
      stepped.deliver(old);
      stepped.advance(Duration.ofMinutes(40));
      String recent = Events.postCreate("1", "11", "twenty minutes ago"); // 11:40:30
      stepped.deliver(recent);
      stepped.advance(Duration.ofMinutes(20)); // now 12:00:30, as the command line's clock
      assertThat(stepped.awaitIdle(Duration.ofSeconds(5))).isTrue();

      Cli.Run run =
          Cli.run(steppedEnv, CLOCK, "--json", "webhooks", "replay", id, "--since", "30m");

      assertThat(run.exitCode()).as(run.toString()).isZero();
      printed = JSON.readTree(run.out()).get("job_id").asText();
      assertThat(stepped.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(receiver.deliveryBodies()).hasSize(4);
      assertThat(receiver.deliveryBodies().get(2)).isEqualTo(recent);
      assertThat(receiver.deliveryBodies().get(3)).contains("replay_job_status", printed);
      assertThat(stepped.replayRequests())
          .extracting(ReplayRequest::jobId)
          .containsExactly(printed);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"25h", "2d", "1441m", "86401s"})
  void replaySince_aboveTheReplayReach_exits2AndAsksNothing(String since) {
    Cli.Run run = run("webhooks", "replay", webhookId, "--since", since);

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("--since", since, "above the replay reach of 24 hours");
    assertThat(platform.replayRequests()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0m", "0s", "-5m", "-1h"})
  void replaySince_zeroOrNegative_exits2AndAsksNothing(String since) {
    Cli.Run run = run("webhooks", "replay", webhookId, "--since", since);

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("--since", "must be a positive duration");
    assertThat(platform.replayRequests()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"30", "30x", "m", "half an hour", "PT30M", "1.5h"})
  void replaySince_notADuration_exits2NamingTheForm(String since) {
    Cli.Run run = run("webhooks", "replay", webhookId, "--since", since);

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("is not a duration", "30m", "1d");
    assertThat(platform.replayRequests()).isEmpty();
  }

  @Test
  void replaySince_withFrom_exits2MutuallyExclusive() {
    Cli.Run run = run("webhooks", "replay", webhookId, "--since", "30m", "--from", "202605011100");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("either --since or --from and --to");
    assertThat(platform.replayRequests()).isEmpty();
  }

  @Test
  void replaySince_withTo_exits2MutuallyExclusive() {
    Cli.Run run = run("webhooks", "replay", webhookId, "--since", "30m", "--to", "202605011200");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("either --since or --from and --to");
  }

  @Test
  void replay_noWindow_exits2NamingBothForms() {
    Cli.Run run = run("webhooks", "replay", webhookId, "--from", "202605011100");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("--from and --to, or --since");
    assertThat(platform.replayRequests()).isEmpty();
  }

  @Test
  void replay_fromAndTo_stillSentAsGiven() {
    Cli.Run run =
        run(
            "webhooks",
            "replay",
            webhookId,
            "--from",
            "202605011100",
            "--to",
            "2026-05-01T11:59:59Z");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(platform.replayRequests())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.from()).isEqualTo(Instant.parse("2026-05-01T11:00:00Z"));
              assertThat(job.to()).isEqualTo(Instant.parse("2026-05-01T11:59:00Z"));
            });
  }

  @Test
  void replayHelp_namesSince() {
    Cli.Run run = run("webhooks", "replay", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("--since", "30m", "24h");
  }
}
