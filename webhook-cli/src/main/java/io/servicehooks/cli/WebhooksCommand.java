package io.servicehooks.cli;

import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code servicehooks webhooks ...}: register, list, check, remove and replay webhooks. */
@Command(
    name = "webhooks",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Register, list, check, remove and replay webhooks (POST/GET/PUT/DELETE /2/webhooks).")
final class WebhooksCommand implements Runnable {

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = "Register URL; the platform checks it with a CRC at once.")
  int create(
      @Parameters(
              paramLabel = "URL",
              description =
                  "https URL of the consumer, no port, at most 200 characters"
                      + " (--allow-insecure-url permits http and a port, for local rehearsal)")
          String url)
      throws IOException {
    WebhookClient.checkWebhookUrl(url, top.allowInsecureUrl);
    top.output().webhook(top.client().create(url));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the application's webhooks.")
  int list() throws IOException {
    top.output().webhooks(top.client().list());
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "revalidate",
      mixinStandardHelpOptions = true,
      description =
          "Ask the platform to check the webhook again (a CRC); prints whether it is valid.")
  int revalidate(@Parameters(paramLabel = "ID", description = "webhook id") String id)
      throws IOException {
    top.output().validity(id, top.client().revalidate(id));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Remove a webhook.")
  int delete(@Parameters(paramLabel = "ID", description = "webhook id") String id)
      throws IOException {
    top.output().deleted("Webhook", id, top.client().delete(id));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "ensure",
      mixinStandardHelpOptions = true,
      description = "Make sure URL is registered and valid: keep, revalidate or create it.")
  int ensure(@Parameters(paramLabel = "URL", description = "https URL of the consumer") String url)
      throws IOException {
    WebhookClient.checkWebhookUrl(url, top.allowInsecureUrl);
    top.output().webhook(top.client().ensureRegistered(url));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "replay",
      mixinStandardHelpOptions = true,
      description = {
        "Deliver again the events of a window within the last 24 hours: --from and --to, or"
            + " --since for the window that ends now.",
        "The platform takes whole minutes (yyyyMMddHHmm, UTC) and includes the --to minute."
      })
  int replay(
      @Parameters(paramLabel = "ID", description = "webhook id") String id,
      @Option(
              names = "--from",
              paramLabel = "TIME",
              converter = InstantConverter.class,
              description = "window start: ISO-8601 (2026-03-01T12:00:00Z) or yyyyMMddHHmm in UTC")
          Instant from,
      @Option(
              names = "--to",
              paramLabel = "TIME",
              converter = InstantConverter.class,
              description = "window end, same formats")
          Instant to,
      @Option(
              names = "--since",
              paramLabel = "DURATION",
              converter = SinceConverter.class,
              description =
                  "window from DURATION ago to now, instead of --from and --to: a whole number"
                      + " and s, m, h or d (30m, 90m, 2h, 1d), at most 24h; the start is rounded"
                      + " down to its minute, but never before the oldest minute still replayable")
          Duration since)
      throws IOException {
    Instant now = top.clock().instant();
    if (since != null) {
      if (from != null || to != null) {
        throw usage("give either --since or --from and --to, not both");
      }
      from = sinceStart(now, since);
      to = now;
    } else if (from == null || to == null) {
      throw usage("give --from and --to, or --since (such as --since 30m)");
    }
    top.output().replayJob(top.client().replay(id, from, to));
    return ServicehooksCli.EXIT_OK;
  }

  /**
   * The start of the window {@code since} before {@code now}: rounded down to its minute, so the
   * whole span is asked for, but never before the oldest whole minute within the replay reach, so
   * {@code --since 24h} is still inside the reach when the request arrives moments later.
   */
  static Instant sinceStart(Instant now, Duration since) {
    Instant start = now.minus(since).truncatedTo(ChronoUnit.MINUTES);
    Instant reach = now.minus(SinceConverter.REPLAY_REACH);
    Instant oldest = reach.truncatedTo(ChronoUnit.MINUTES);
    if (oldest.isBefore(reach)) {
      oldest = oldest.plus(1, ChronoUnit.MINUTES);
    }
    return start.isBefore(oldest) ? oldest : start;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine().getSubcommands().get("replay"), message);
  }
}
