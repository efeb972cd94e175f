package io.servicehooks.cli;

import io.servicehooks.testkit.PlatformSimulator;
import java.io.PrintWriter;
import java.time.Duration;
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
      defaultValue = "PT1M",
      converter = DurationConverter.class,
      description = "how often every webhook gets a CRC check, ISO-8601; default ${DEFAULT-VALUE}")
  Duration recheckEvery;

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
