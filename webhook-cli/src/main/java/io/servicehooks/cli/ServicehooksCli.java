package io.servicehooks.cli;

import io.servicehooks.registration.WebhookApiException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine;

/**
 * The {@code servicehooks} command line: registers webhooks and activity subscriptions with the
 * platform, sends signed sample events to a consumer, and runs the platform simulator locally.
 * Credentials come only from the environment, never from arguments.
 *
 * <p>Exit codes: 0 success, 1 the platform (or the consumer, for {@code send}; the inbox's
 * database, for {@code inbox}) refused or could not be reached, or the row named does not exist, 2
 * a usage or configuration error.
 */
public final class ServicehooksCli {

  /** Success. */
  public static final int EXIT_OK = 0;

  /**
   * The platform (or the inbox's database) answered with an error or could not be reached, or what
   * was named does not exist.
   */
  public static final int EXIT_API_ERROR = 1;

  /** Bad arguments, missing credentials, or a URL refused before any call. */
  public static final int EXIT_USAGE = 2;

  private ServicehooksCli() {}

  /** Runs the command line against the process environment and exits with its code. */
  public static void main(String[] args) {
    System.exit(commandLine(System.getenv()).execute(args));
  }

  /**
   * The command line, reading credentials and settings from {@code environment} instead of the
   * process environment, so it can run in-process (tests, embedding). Set its output with {@link
   * CommandLine#setOut} and {@link CommandLine#setErr}.
   */
  public static CommandLine commandLine(Map<String, String> environment) {
    return commandLine(environment, Clock.systemUTC());
  }

  /**
   * Like {@link #commandLine(Map)}, with {@code clock} as "now" (tests move it with a simulator).
   */
  static CommandLine commandLine(Map<String, String> environment, Clock clock) {
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(clock, "clock");
    CommandLine commandLine = new CommandLine(new TopCommand(Map.copyOf(environment), clock));
    commandLine.setExecutionExceptionHandler(ServicehooksCli::handleFailure);
    CommandLine inbox = commandLine.getSubcommands().get("inbox");
    if (inbox != null) {
      withoutPlatformOptions(inbox);
    }
    return commandLine;
  }

  /**
   * The inbox commands talk to the database, never to the platform: the inherited {@code
   * --base-url} and {@code --allow-insecure-url} would only mislead in their help.
   */
  private static void withoutPlatformOptions(CommandLine command) {
    for (String name : new String[] {"--base-url", "--allow-insecure-url"}) {
      CommandLine.Model.OptionSpec option = command.getCommandSpec().findOption(name);
      if (option != null) {
        command.getCommandSpec().remove(option);
      }
    }
    command.getSubcommands().values().forEach(ServicehooksCli::withoutPlatformOptions);
  }

  private static int handleFailure(
      Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
    PrintWriter err = commandLine.getErr();
    if (e instanceof UsageException
        || e instanceof IllegalArgumentException
        || e instanceof IllegalStateException) {
      // the library names its builder option; here the user needs the flag
      err.println(
          "error: "
              + String.valueOf(e.getMessage())
                  .replace("allowInsecureUrls(true)", "--allow-insecure-url"));
      err.flush();
      return EXIT_USAGE;
    }
    if (e instanceof WebhookApiException refused) {
      err.println("error: " + Printable.of(e.getMessage()) + advice(refused));
      err.flush();
      return EXIT_API_ERROR;
    }
    if (e instanceof IOException) {
      String detail = e.getMessage() == null ? "" : ": " + Printable.of(e.getMessage());
      err.println("error: cannot reach the server (" + e.getClass().getSimpleName() + detail + ")");
      err.flush();
      return EXIT_API_ERROR;
    }
    err.println("error: unexpected failure");
    e.printStackTrace(err);
    err.flush();
    return EXIT_API_ERROR;
  }

  /** What to do about a refusal that will not heal by trying again, on the same line; or "". */
  private static String advice(WebhookApiException refused) {
    if (refused.reason() == WebhookApiException.Reason.TOKEN_INVALID) {
      return " (the user's token no longer works: sign in again with `servicehooks auth login`)";
    }
    if (refused.reason() == WebhookApiException.Reason.RATE_LIMITED
        && refused.rateLimitReset().isPresent()
        && !String.valueOf(refused.getMessage()).contains("reset")) {
      return " (rate limit resets at " + refused.rateLimitReset().get() + ")";
    }
    return "";
  }

  /**
   * A configuration or usage problem found while running a command, such as missing credentials.
   */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
