package io.servicehooks.cli;

import io.servicehooks.registration.WebhookClient;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The root {@code servicehooks} command: global options, the environment, and the client built from
 * both.
 */
@Command(
    name = "servicehooks",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Register webhooks with the platform, send signed sample events, run and drive a local"
            + " simulator, hold the activity stream, operate the durable inbox, look posts up and"
            + " answer as a user.",
    subcommands = {
      WebhooksCommand.class,
      SubscriptionsCommand.class,
      SendCommand.class,
      SimulateCommand.class,
      InboxCommand.class,
      AuthCommand.class,
      ConnectionsCommand.class,
      TriggerCommand.class,
      ListenCommand.class,
      PostsCommand.class,
      DmCommand.class
    },
    footerHeading = "%nEnvironment:%n",
    footer = {
      "  SERVICE_API_KEY, SERVICE_API_SECRET  API key and secret (a token is fetched)",
      "  SERVICE_BEARER_TOKEN                 app-only bearer token, if no key/secret",
      "  SERVICE_API_BASE_URL                 platform address",
      "                                       (default " + TopCommand.DEFAULT_BASE_URL + ")",
      "  SERVICE_CONSUMER_SECRET              signs the events that `send` sends and",
      "                                       `listen --forward-to` forwards",
      "  SERVICE_USER_TOKEN, SERVICE_USER_TOKEN_SECRET",
      "                                       a user's token, over `auth login`'s file",
      "  SERVICEHOOKS_JDBC_URL                the durable inbox's database, for `inbox`",
      "  SERVICEHOOKS_JDBC_USER, SERVICEHOOKS_JDBC_PASSWORD",
      "                                       its user and password",
      "Secrets come from the environment only, never from arguments, and are never",
      "printed.",
      "",
      "Exit codes:",
      "  0  success",
      "  1  the platform refused the call (its reason is printed) or is unreachable;",
      "     for `inbox`: the database is unreachable or refused, or no such row",
      "  2  bad arguments, missing credentials, or a URL refused before any call"
    })
final class TopCommand implements Runnable {

  static final String DEFAULT_BASE_URL = "https://api.example.com";

  private final Map<String, String> environment;
  private final Clock clock;

  @Spec CommandSpec spec;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "Print the result as JSON instead of a table.")
  boolean json;

  @Option(
      names = "--base-url",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "Platform API address; default $SERVICE_API_BASE_URL, else " + DEFAULT_BASE_URL + ".")
  String baseUrl;

  @Option(
      names = "--allow-insecure-url",
      scope = ScopeType.INHERIT,
      description =
          "Permit plain http to a platform that is not on this machine (a simulator elsewhere on"
              + " the network), and http and a port in consumer URLs; credentials then travel"
              + " unencrypted.")
  boolean allowInsecureUrl;

  TopCommand(Map<String, String> environment, Clock clock) {
    this.environment = environment;
    this.clock = clock;
  }

  @Override
  public void run() {
    spec.commandLine().usage(out());
  }

  String env(String name) {
    String value = environment.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** "Now" for relative options such as {@code replay --since}. */
  Clock clock() {
    return clock;
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  Output output() {
    return new Output(out(), json);
  }

  /** The platform address from {@code --base-url}, else the environment, else the default. */
  URI baseUri() {
    URI given = givenBaseUri();
    return given != null ? given : URI.create(DEFAULT_BASE_URL);
  }

  /**
   * The platform address from {@code --base-url} or {@code SERVICE_API_BASE_URL}, or null when
   * neither is set.
   */
  URI givenBaseUri() {
    String value = baseUrl != null ? baseUrl : env("SERVICE_API_BASE_URL");
    if (value == null) {
      return null;
    }
    try {
      URI uri = new URI(value);
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new ServicehooksCli.UsageException(
            "the base URL must be an absolute http(s) URL, was: " + value);
      }
      return uri;
    } catch (java.net.URISyntaxException e) {
      throw new ServicehooksCli.UsageException("the base URL is malformed: " + value);
    }
  }

  /**
   * {@code platform}, when a credential may be sent to it: https, or http to this machine, or
   * anything with {@code --allow-insecure-url}.
   *
   * @throws ServicehooksCli.UsageException naming the flag, before any call
   */
  URI credentialSafe(URI platform) {
    if ("http".equalsIgnoreCase(platform.getScheme())
        && !allowInsecureUrl
        && !isLoopback(platform.getHost())) {
      throw new ServicehooksCli.UsageException(
          "the platform address must use https: http://"
              + platform.getHost()
              + " would carry the API key, secret and tokens unencrypted (--allow-insecure-url"
              + " permits it, for a simulator on another machine)");
    }
    return platform;
  }

  private static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (!host.matches("[0-9.]+|\\[?[0-9a-fA-F:]+]?")) {
      return false;
    }
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /** How long one answer of the platform may take, whole (status, headers and body). */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

  /** A client for the platform, with credentials from the environment only. */
  WebhookClient client() {
    return client(baseUri());
  }

  /**
   * A client for {@code platform}, with credentials from the environment only. Its time-outs keep a
   * command facing a platform that stops answering under 35 s in all: the token (10 s) and one call
   * with its one repeat (10 s each, a second apart) where a repeat is safe.
   */
  WebhookClient client(URI platform) {
    WebhookClient.Builder builder =
        WebhookClient.builder()
            .baseUrl(credentialSafe(platform))
            .allowInsecureUrls(allowInsecureUrl)
            .connectTimeout(Duration.ofSeconds(5))
            .requestTimeout(CALL_TIMEOUT)
            .maxRetries(1)
            .maxRetryWait(Duration.ofSeconds(15));
    String key = env("SERVICE_API_KEY");
    String secret = env("SERVICE_API_SECRET");
    String token = env("SERVICE_BEARER_TOKEN");
    if (key != null && secret != null) {
      builder.apiCredentials(key, secret);
    } else if (token != null) {
      builder.bearerToken(token);
    } else if (key != null || secret != null) {
      throw new ServicehooksCli.UsageException(
          "missing credentials: "
              + (key == null ? "SERVICE_API_KEY" : "SERVICE_API_SECRET")
              + " is not set (set both SERVICE_API_KEY and SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN)");
    } else {
      throw new ServicehooksCli.UsageException(
          "missing credentials: set SERVICE_API_KEY and"
              + " SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN, in the environment");
    }
    return builder.build();
  }
}
