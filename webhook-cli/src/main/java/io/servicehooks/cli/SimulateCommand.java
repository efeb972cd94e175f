package io.servicehooks.cli;

import io.servicehooks.testkit.PlatformSimulator;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code servicehooks simulate}: runs the platform simulator in the foreground until Ctrl-C, and
 * prints its address and demo credentials as shell {@code export} lines. The demo credentials are
 * the simulator's own, not the user's secrets.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Run the platform simulator locally until Ctrl-C.",
      "Prints export lines to paste into another shell; webhook URLs on 127.0.0.1 or localhost",
      "with http and a port are accepted (use --allow-insecure-url with webhooks create)."
    })
final class SimulateCommand implements Callable<Integer> {

  @ParentCommand TopCommand top;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "port to listen on, 127.0.0.1; default ${DEFAULT-VALUE} (any free port)")
  int port;

  @Option(
      names = "--recheck-every",
      paramLabel = "DURATION",
      defaultValue = "PT1H",
      converter = DurationConverter.class,
      description = "how often every webhook gets a CRC check, ISO-8601; default ${DEFAULT-VALUE}")
  Duration recheckEvery;

  @Option(
      names = "--retries",
      paramLabel = "WAITS",
      defaultValue = "3s,27s,242s",
      converter = RetriesConverter.class,
      description = {
        "the waits before each retry of a failed delivery, comma-separated with a unit",
        "(ms, s, m, h), or none; default ${DEFAULT-VALUE} as on the platform.",
        "Compress it to rehearse drops, e.g. --retries 1s,2s,4s"
      })
  List<Duration> retries;

  @Option(
      names = "--keep-alive",
      paramLabel = "DURATION",
      defaultValue = "PT20S",
      converter = DurationConverter.class,
      description =
          "interval of the activity stream's keep-alive, ISO-8601; default ${DEFAULT-VALUE}")
  Duration keepAlive;

  @Override
  public Integer call() throws InterruptedException {
    if (port < 0 || port > 65_535) {
      throw new ServicehooksCli.UsageException("--port must be 0..65535, was " + port);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    PlatformSimulator simulator =
        PlatformSimulator.builder()
            .localMode(true)
            .port(port)
            .recheckEvery(recheckEvery)
            .retrySchedule(retries)
            .streamKeepAlive(keepAlive)
            .controlEndpoint(true)
            .build()
            .start();
    Thread hook =
        new Thread(
            () -> {
              simulator.close();
              stopped.countDown();
            },
            "servicehooks-simulate-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    PrintWriter out = top.out();
    out.println("# platform simulator listening on " + simulator.baseUrl() + " (Ctrl-C to stop)");
    out.println(
        "# control endpoint "
            + simulator.baseUrl()
            + "/_sim/ (servicehooks trigger, docs/simulator.md);"
            + " retries after "
            + (retries.isEmpty() ? "none" : RetriesConverter.format(retries)));
    out.println("# demo credentials of this simulator; paste into another shell:");
    out.println("export SERVICE_API_BASE_URL=" + simulator.baseUrl());
    out.println("export SERVICE_API_KEY=" + simulator.apiKey());
    out.println("export SERVICE_API_SECRET=" + simulator.apiSecret());
    out.println("export SERVICE_CONSUMER_SECRET=" + simulator.consumerSecret());
    out.flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      // stopped in-process (tests, embedding) rather than by Ctrl-C
      Runtime.getRuntime().removeShutdownHook(hook);
      simulator.close();
    }
    return ServicehooksCli.EXIT_OK;
  }

  /** Reads a retry schedule such as {@code 3s,27s,242s}, or {@code none}. */
  static final class RetriesConverter
      implements picocli.CommandLine.ITypeConverter<List<Duration>> {
    @Override
    public List<Duration> convert(String value) {
      String text = value.trim();
      if (text.equalsIgnoreCase("none") || text.isEmpty()) {
        return List.of();
      }
      List<Duration> waits = new ArrayList<>();
      for (String part : text.split(",")) {
        waits.add(wait(part.trim(), value));
      }
      if (waits.size() > 10) {
        throw new picocli.CommandLine.TypeConversionException(
            "at most 10 retries, was " + waits.size());
      }
      return List.copyOf(waits);
    }

    private static Duration wait(String part, String whole) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("([0-9]{1,7})(ms|s|m|h)").matcher(part);
      if (!m.matches()) {
        throw new picocli.CommandLine.TypeConversionException(
            "'"
                + whole
                + "' is not a list of waits such as 3s,27s,242s (units ms, s, m, h) or none");
      }
      long amount = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
    }

    static String format(List<Duration> waits) {
      StringBuilder text = new StringBuilder();
      for (Duration wait : waits) {
        if (text.length() > 0) {
          text.append(',');
        }
        long millis = wait.toMillis();
        text.append(millis % 1000 == 0 ? (millis / 1000) + "s" : millis + "ms");
      }
      return text.toString();
    }
  }

  /** Reads an ISO-8601 duration such as {@code PT30S}. */
  static final class DurationConverter implements picocli.CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        Duration duration = Duration.parse(value);
        if (duration.isZero() || duration.isNegative()) {
          throw new picocli.CommandLine.TypeConversionException("must be positive: " + value);
        }
        return duration;
      } catch (java.time.format.DateTimeParseException e) {
        throw new picocli.CommandLine.TypeConversionException(
            "'" + value + "' is not an ISO-8601 duration such as PT30S or PT1M");
      }
    }
  }
}
