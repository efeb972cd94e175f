package io.servicehooks.cli;

import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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

  private static final String INSECURE_HELP =
      "Permit http and a port in the URL, for local rehearsal against `servicehooks simulate`.";

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
              description = "https URL of the consumer, no port, at most 200 characters")
          String url,
      @Option(names = "--allow-insecure-url", description = INSECURE_HELP) boolean allowInsecureUrl)
      throws IOException {
    WebhookClient.checkWebhookUrl(url, allowInsecureUrl);
    top.output().webhook(top.client(allowInsecureUrl).create(url));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the application's webhooks.")
  int list() throws IOException {
    top.output().webhooks(top.client(false).list());
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "revalidate",
      mixinStandardHelpOptions = true,
      description =
          "Ask the platform to check the webhook again (a CRC); prints whether it is valid.")
  int revalidate(@Parameters(paramLabel = "ID", description = "webhook id") String id)
      throws IOException {
    top.output().validity(id, top.client(false).revalidate(id));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Remove a webhook.")
  int delete(@Parameters(paramLabel = "ID", description = "webhook id") String id)
      throws IOException {
    top.output().deleted("Webhook", id, top.client(false).delete(id));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "ensure",
      mixinStandardHelpOptions = true,
      description = "Make sure URL is registered and valid: keep, revalidate or create it.")
  int ensure(
      @Parameters(paramLabel = "URL", description = "https URL of the consumer") String url,
      @Option(names = "--allow-insecure-url", description = INSECURE_HELP) boolean allowInsecureUrl)
      throws IOException {
    WebhookClient.checkWebhookUrl(url, allowInsecureUrl);
    top.output().webhook(top.client(allowInsecureUrl).ensureRegistered(url));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "replay",
      mixinStandardHelpOptions = true,
      description = "Deliver again the events of a window within the last 24 hours.")
  int replay(
      @Parameters(paramLabel = "ID", description = "webhook id") String id,
      @Option(
              names = "--from",
              required = true,
              paramLabel = "TIME",
              converter = InstantConverter.class,
              description = "window start: ISO-8601 (2026-03-01T12:00:00Z) or yyyyMMddHHmm in UTC")
          Instant from,
      @Option(
              names = "--to",
              required = true,
              paramLabel = "TIME",
              converter = InstantConverter.class,
              description = "window end, same formats")
          Instant to)
      throws IOException {
    top.output().replayJob(top.client(false).replay(id, from, to));
    return ServicehooksCli.EXIT_OK;
  }
}
