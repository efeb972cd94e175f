package io.servicehooks.cli;

import java.net.URI;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code servicehooks listen}: holds the app's activity stream and prints one line per event; with
 * {@code --forward-to} it also POSTs each event, signed with {@code SERVICE_CONSUMER_SECRET} as the
 * platform signs webhook deliveries, to a local consumer, so a laptop receives real events with no
 * public URL (like {@code stripe listen --forward-to}).
 */
@Command(
    name = "listen",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Hold the activity stream (GET /2/activity/stream) and print one line per event until",
      "Ctrl-C; with --forward-to, also POST each event signed with $SERVICE_CONSUMER_SECRET",
      "to a local consumer and print its answer (tried 3 times unless 2xx). Events and their",
      "order are as the stream gives them: after a reconnect, backfill may repeat a few (the",
      "consumer dedups). Platform trouble (429, 5xx, a stalled answer) is waited out."
    })
final class ListenCommand implements Callable<Integer> {

  @ParentCommand TopCommand top;

  @Option(
      names = "--events",
      paramLabel = "TYPES",
      split = ",",
      description = "only these event types, globs allowed, e.g. post.*,dm.*; default all")
  List<String> events;

  @Option(
      names = "--forward-to",
      paramLabel = "URL",
      description = "POST each event, signed, to this consumer URL (http allowed)")
  String forwardTo;

  // Hidden: tests shorten it to see a stalled stream replaced without waiting 30 s.
  @Option(
      names = "--stall-timeout",
      hidden = true,
      converter = SimulateCommand.DurationConverter.class,
      defaultValue = "PT30S")
  java.time.Duration stallTimeout;

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
    String key = top.env("SERVICE_API_KEY");
    String secret = top.env("SERVICE_API_SECRET");
    String token = top.env("SERVICE_BEARER_TOKEN");
    if ((key == null || secret == null) && token == null) {
      throw new ServicehooksCli.UsageException(
          "missing credentials: set SERVICE_API_KEY and SERVICE_API_SECRET, or"
              + " SERVICE_BEARER_TOKEN, in the environment");
    }
    boolean useKey = key != null && secret != null;
    StreamTap tap =
        new StreamTap(
            top.credentialSafe(top.baseUri()),
            useKey ? null : token,
            useKey ? key : null,
            useKey ? secret : null,
            StreamTap.eventFilter(events),
            forward,
            consumerSecret,
            top.json,
            top.out(),
            top.err(),
            top.clock(),
            stallTimeout);
    Thread runner = Thread.currentThread();
    Thread hook =
        new Thread(
            () -> {
              tap.stop();
              try {
                runner.join(5_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "servicehooks-listen-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    StreamTap.Outcome outcome;
    try {
      outcome = tap.run();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is running and waits for us
      }
    }
    return outcome == StreamTap.Outcome.REFUSED
        ? ServicehooksCli.EXIT_API_ERROR
        : ServicehooksCli.EXIT_OK;
  }
}
