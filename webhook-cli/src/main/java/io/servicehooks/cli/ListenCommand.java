package io.servicehooks.cli;

import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.stream.ActivityStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code servicehooks listen}: holds the app's activity stream with the library's {@link
 * ActivityStream} and prints one line per event; with {@code --forward-to} it also POSTs each
 * event, signed with {@code SERVICE_CONSUMER_SECRET} as the platform signs webhook deliveries, to a
 * local consumer, so a laptop receives real events with no public URL (like {@code stripe listen
 * --forward-to}). The stream does the reading, reconnecting, back-off and backfill; {@code
 * --events} is the consumer's routing; {@link ListenOutput} prints and forwards; {@link ListenLog}
 * shows the stream's log lines on standard error.
 */
@Command(
    name = "listen",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Hold the activity stream (GET /2/activity/stream) and print one line per event until",
      "Ctrl-C; with --forward-to, also POST each event signed with $SERVICE_CONSUMER_SECRET",
      "to a local consumer and print its answer (tried 3 times unless 2xx). Events and their",
      "order are as the stream gives them: on start and after a reconnect, backfill may repeat",
      "a few (the consumer dedups). Platform trouble (429, 5xx, a stalled answer) is waited out."
    })
final class ListenCommand implements Callable<Integer> {

  /**
   * How often the waiting thread looks whether the stream connected, to say so once ("Listening
   * on"); the first event says it too, so it never comes after an event's line.
   */
  private static final Duration LOOK = Duration.ofMillis(200);

  @ParentCommand TopCommand top;

  @Option(
      names = "--events",
      paramLabel = "TYPES",
      split = ",",
      description =
          "only these event types: exact, a prefix like post.* or *; e.g. post.*,dm.*;"
              + " default all")
  List<String> events;

  @Option(
      names = "--forward-to",
      paramLabel = "URL",
      description = "POST each event, signed, to this consumer URL (http allowed)")
  String forwardTo;

  // Hidden: tests shorten the stream's stall time-out to see a stalled stream replaced quickly.
  @Option(
      names = "--stall-timeout",
      hidden = true,
      converter = SimulateCommand.DurationConverter.class)
  Duration stallTimeout;

  @Override
  public Integer call() {
    URI forward = null;
    String consumerSecret = null;
    if (forwardTo != null) {
      try {
        forward = new URI(forwardTo);
      } catch (java.net.URISyntaxException e) {
        throw new ServicehooksCli.UsageException("--forward-to is not a URL: " + forwardTo);
      }
      if (forward.getHost() == null
          || !("http".equals(forward.getScheme()) || "https".equals(forward.getScheme()))) {
        throw new ServicehooksCli.UsageException(
            "--forward-to must be an absolute http(s) URL, was: " + forwardTo);
      }
      consumerSecret = top.env("SERVICE_CONSUMER_SECRET");
      if (consumerSecret == null) {
        throw new ServicehooksCli.UsageException(
            "missing consumer secret: set SERVICE_CONSUMER_SECRET in the environment to sign"
                + " forwarded events");
      }
    }
    WebhookClient client = top.client();
    EventForwarder forwarder =
        forward == null
            ? null
            : new EventForwarder(
                HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .build(),
                forward,
                consumerSecret);
    String listening =
        "Listening on "
            + client.baseUrl().resolve("/2/activity/stream")
            + (forward == null ? "" : ", forwarding to " + forward)
            + " (Ctrl-C to stop)";
    AtomicBoolean said = new AtomicBoolean();
    Runnable connected =
        () -> {
          if (said.compareAndSet(false, true)) {
            top.err().println(listening);
            top.err().flush();
          }
        };
    ListenOutput output =
        new ListenOutput(forwarder, top.json, top.out(), top.err(), top.clock(), connected);
    WebhookConsumer consumer = consumer(output);
    ActivityStream stream;
    try {
      ActivityStream.Builder builder = ActivityStream.builder(consumer, client);
      if (stallTimeout != null) {
        builder.stallTimeout(stallTimeout);
      }
      stream = builder.build();
    } catch (IllegalArgumentException e) {
      consumer.close();
      throw new ServicehooksCli.UsageException("--stall-timeout: " + e.getMessage());
    }
    return hold(stream, consumer, connected);
  }

  /**
   * The consumer the stream hands events to: every event printed (no dedup: a backfill's repeats
   * are shown as the stream gives them), in order, by one synchronous listener routed by {@code
   * --events}. Stream events carry no signature, so its consumer secret, required by the builder,
   * verifies nothing: a random one, never the consumer's.
   */
  private WebhookConsumer consumer(ListenOutput output) {
    List<String> patterns =
        events == null
            ? List.of()
            : events.stream().map(String::trim).filter(p -> !p.isEmpty()).toList();
    byte[] unused = new byte[32];
    new SecureRandom().nextBytes(unused);
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(List.of(HexFormat.of().formatHex(unused)))
            .deduplicator(Deduplicator.none())
            // listen shows and forwards what the stream carries, the user's own activity too
            .ignoreOwnEvents(false)
            .acknowledgement(Acknowledgement.SYNCHRONOUS);
    try {
      builder.on(patterns.isEmpty() ? List.of("*") : patterns, output);
    } catch (IllegalArgumentException e) {
      throw new ServicehooksCli.UsageException("--events: " + e.getMessage());
    }
    return builder.build();
  }

  /**
   * Runs the stream until Ctrl-C (the shutdown hook closes it), an interrupt of this thread, or a
   * refusal of the credentials (exit 1; the stream's ERROR line said why).
   */
  private int hold(ActivityStream stream, WebhookConsumer consumer, Runnable connected) {
    Thread runner = Thread.currentThread();
    // The hook waits for this command's last words, not for its thread: on Ctrl-C that thread
    // ends in System.exit, which blocks while the hooks run.
    CountDownLatch done = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              stream.close();
              try {
                done.await(5, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "servicehooks-listen-shutdown");
    boolean interrupted = false;
    ActivityStream.State end;
    try (ListenLog log = ListenLog.attach(top.err())) {
      Runtime.getRuntime().addShutdownHook(hook);
      stream.start();
      try {
        while (!stream.awaitStopped(LOOK)) {
          if (stream.state() == ActivityStream.State.CONNECTED) {
            connected.run();
          }
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
      end = stream.state();
    } finally {
      // Cleared for the close, which waits (bounded) for the lines already read to be printed.
      interrupted |= Thread.interrupted();
      stream.close();
      consumer.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is running and waits for us
      }
      if (interrupted) {
        runner.interrupt();
      }
    }
    if (end == ActivityStream.State.REFUSED) {
      done.countDown();
      return ServicehooksCli.EXIT_API_ERROR;
    }
    top.err().println("stopped listening");
    top.err().flush();
    done.countDown();
    return ServicehooksCli.EXIT_OK;
  }
}
