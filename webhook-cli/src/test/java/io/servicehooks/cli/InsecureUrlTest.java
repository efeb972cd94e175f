package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.PlatformSimulator;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One https rule for every command that sends a credential: a remote platform over plain http is
 * refused before any call, naming {@code --allow-insecure-url}, which every such command accepts.
 * The remote platform is a simulator on this machine's non-loopback address.
 */
final class InsecureUrlTest {

  private String address;
  private PlatformSimulator platform;
  private FakePlatform fake;
  private Map<String, String> env;

  @BeforeEach
  void start() throws Exception {
    address = FakePlatform.nonLoopbackAddress();
    assumeThat(address).as("a non-loopback address of this machine").isNotNull();
    platform = PlatformSimulator.builder().host("0.0.0.0").localMode(true).build().start();
    fake = FakePlatform.startOn(address);
    env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", "http://" + address + ":" + platform.port());
    env.put("SERVICE_API_KEY", platform.apiKey());
    env.put("SERVICE_API_SECRET", platform.apiSecret());
    env.put("SERVICE_CONSUMER_SECRET", platform.consumerSecret());
  }

  @AfterEach
  void stop() {
    if (platform != null) {
      platform.close();
    }
    if (fake != null) {
      fake.close();
    }
  }

  @Test
  void everyCredentialCommand_remoteHttpWithoutFlag_exit2NamingTheFlag_noCallMade() {
    Map<String, String> toFake = new HashMap<>(env);
    toFake.put("SERVICE_API_BASE_URL", fake.baseUrl().toString());
    List<String[]> commands =
        List.of(
            new String[] {"listen"},
            new String[] {"webhooks", "list"},
            new String[] {"subscriptions", "list"},
            new String[] {"connections", "list"},
            new String[] {"auth", "login"});

    for (String[] command : commands) {
      Cli.Run run = Cli.run(toFake, command);

      assertThat(run.exitCode()).as(String.join(" ", command) + "\n" + run).isEqualTo(2);
      assertThat(run.err().strip().split("\\R")).as(run.toString()).hasSize(1);
      assertThat(run.err()).contains("https", "--allow-insecure-url");
    }
    assertThat(fake.requests()).isEmpty();
  }

  @Test
  void webhooksAndSubscriptionsAndConnections_acceptTheFlag() {
    for (String[] command :
        List.of(
            new String[] {"webhooks", "list", "--allow-insecure-url"},
            new String[] {"subscriptions", "list", "--allow-insecure-url"},
            new String[] {"connections", "list", "--allow-insecure-url"},
            new String[] {"--allow-insecure-url", "webhooks", "list"})) {
      Cli.Run run = Cli.run(env, command);

      assertThat(run.exitCode()).as(String.join(" ", command) + "\n" + run).isZero();
    }
  }

  @Test
  void listen_acceptsTheFlag_andHoldsTheStream() throws Exception {
    ListenTroubleTest.Listening listening =
        new ListenTroubleTest.Listening(env, "--allow-insecure-url");
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> platform.openStreams().size() == 1 || listening.exit.isDone());
      assertThat(listening.exit).as(listening.err()).isNotDone();
    } finally {
      listening.close();
    }
  }

  @Test
  void loopbackHttp_needsNoFlag() {
    Map<String, String> loopback = new HashMap<>(env);
    loopback.put("SERVICE_API_BASE_URL", "http://127.0.0.1:" + platform.port());

    Cli.Run run = Cli.run(loopback, "webhooks", "list");

    assertThat(run.exitCode()).as(run.toString()).isZero();
  }

  @Test
  void send_consumerOverHttp_acceptsTheSameFlag() throws Exception {
    try (io.servicehooks.testkit.ConsumerStub consumer =
        io.servicehooks.testkit.ConsumerStub.start(platform.consumerSecret())) {
      Cli.Run refused = Cli.run(env, "send", consumer.url("/webhook"), "--type", "post.create");
      Cli.Run sent =
          Cli.run(
              env,
              "--allow-insecure-url",
              "send",
              consumer.url("/webhook"),
              "--type",
              "post.create");

      assertThat(refused.exitCode()).isEqualTo(2);
      assertThat(refused.err()).contains("--allow-insecure-url");
      assertThat(sent.exitCode()).as(sent.toString()).isZero();
    }
  }
}
