package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.registration.AccessType;
import io.servicehooks.registration.RequestToken;
import io.servicehooks.registration.UserCredentials;
import io.servicehooks.registration.UserSignIn;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code servicehooks auth ...}: sign in as a user (OAuth 1.0a, PIN flow), show who is signed in,
 * sign out (revoke the token and delete the file). The credentials act for the user, in calls such
 * as {@code subscriptions create --as-user}.
 */
@Command(
    name = "auth",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Act for a user: sign in with the PIN flow (OAuth 1.0a), show who is signed in, sign out.",
      "Credentials are saved to ~/.config/servicehooks/credentials.json (mode 600);",
      "SERVICE_USER_TOKEN and SERVICE_USER_TOKEN_SECRET override the file."
    })
final class AuthCommand implements Runnable {

  static final String ENV_TOKEN = "SERVICE_USER_TOKEN";
  static final String ENV_TOKEN_SECRET = "SERVICE_USER_TOKEN_SECRET";

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  /** Where the PIN is read from; the process's standard input unless replaced (tests). */
  InputStream input = System.in;

  /** {@code --credentials-file}, shared with {@code subscriptions create --as-user}. */
  static final class FileOption {
    @Option(
        names = "--credentials-file",
        paramLabel = "PATH",
        description =
            "where the user's credentials are kept; default ~/"
                + UserCredentialsFile.DEFAULT_RELATIVE)
    Path path;
  }

  /**
   * The user's credentials in force, where they came from, and the platform that issued them (null
   * when not recorded: credentials from the environment).
   */
  record Found(UserCredentials credentials, String source, boolean fromEnvironment, URI platform) {}

  /** The platform's code for "invalid or expired token": the token no longer works anywhere. */
  static final int CODE_INVALID_TOKEN = 89;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  static UserCredentialsFile file(TopCommand top, FileOption option) {
    return UserCredentialsFile.resolve(option == null ? null : option.path, top.env("HOME"));
  }

  /**
   * The credentials to act with: {@code SERVICE_USER_TOKEN} and {@code SERVICE_USER_TOKEN_SECRET}
   * when set, else the credentials file; empty when neither.
   */
  static Optional<Found> credentials(TopCommand top, FileOption option) throws IOException {
    String token = top.env(ENV_TOKEN);
    String secret = top.env(ENV_TOKEN_SECRET);
    if (token != null || secret != null) {
      if (token == null || secret == null) {
        throw new ServicehooksCli.UsageException(
            "set both "
                + ENV_TOKEN
                + " and "
                + ENV_TOKEN_SECRET
                + ", or neither; "
                + (token == null ? ENV_TOKEN : ENV_TOKEN_SECRET)
                + " is not set");
      }
      return Optional.of(
          new Found(
              UserCredentials.of(token, secret),
              "the environment (" + ENV_TOKEN + ", " + ENV_TOKEN_SECRET + ")",
              true,
              null));
    }
    UserCredentialsFile file = file(top, option);
    return file.read()
        .map(
            saved ->
                new Found(saved.credentials(), file.path().toString(), false, saved.platform()));
  }

  /** The credentials in force, or a usage error that says how to sign in. */
  static Found requireCredentials(TopCommand top, FileOption option) throws IOException {
    return credentials(top, option)
        .orElseThrow(
            () ->
                new ServicehooksCli.UsageException(
                    "not signed in as a user: run `servicehooks auth login`, or set "
                        + ENV_TOKEN
                        + " and "
                        + ENV_TOKEN_SECRET
                        + " (no credentials file at "
                        + file(top, option).path()
                        + ")"));
  }

  /** A client with the API key and secret, which sign every user-context call. */
  static WebhookClient appClient(TopCommand top) {
    if (top.env("SERVICE_API_KEY") == null || top.env("SERVICE_API_SECRET") == null) {
      throw new ServicehooksCli.UsageException(
          "acting for a user needs SERVICE_API_KEY and SERVICE_API_SECRET in the environment"
              + " (a bearer token alone cannot sign for a user)");
    }
    return top.client();
  }

  /**
   * A client for the platform that issued the user's credentials: the one the credentials file
   * names, else the one configured. A token is sent to no other platform.
   *
   * @throws ServicehooksCli.UsageException when {@code --base-url} or {@code SERVICE_API_BASE_URL}
   *     names another platform than the file, in one line, before any call
   */
  static WebhookClient userPlatformClient(TopCommand top, Found found) {
    if (found.platform() == null) {
      return appClient(top);
    }
    URI given = top.givenBaseUri();
    if (given != null && !samePlatform(given, found.platform())) {
      throw new ServicehooksCli.UsageException(
          "the user's credentials in "
              + found.source()
              + " were issued by "
              + found.platform()
              + ", not by "
              + given
              + ": unset SERVICE_API_BASE_URL and --base-url to act for this user there, or run"
              + " `servicehooks auth login` against "
              + given);
    }
    if (top.env("SERVICE_API_KEY") == null || top.env("SERVICE_API_SECRET") == null) {
      appClient(top); // says what is missing
    }
    return top.client(found.platform());
  }

  /** Same scheme, host, port and path (without trailing slashes), case aside where it may be. */
  static boolean samePlatform(URI a, URI b) {
    return key(a).equals(key(b));
  }

  private static String key(URI uri) {
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    int port = uri.getPort();
    if (port == -1) {
      port = scheme.equals("https") ? 443 : 80;
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port + path;
  }

  @Command(
      name = "login",
      mixinStandardHelpOptions = true,
      description = {
        "Sign in as a user with the PIN flow: open the URL printed, authorize the application,",
        "type the PIN shown. The credentials are saved with mode 600."
      })
  int login(
      @Option(
              names = "--access-type",
              paramLabel = "read|write",
              converter = AccessTypeConverter.class,
              description = "the access to ask for; default the application's setting")
          AccessType accessType,
      @Mixin FileOption fileOption)
      throws IOException {
    WebhookClient client = appClient(top);
    UserCredentialsFile file = file(top, fileOption);
    UserSignIn signIn = client.userSignIn();
    RequestToken requestToken = signIn.requestToken(UserSignIn.OUT_OF_BAND, accessType);
    PrintWriter err = top.err();
    // The prompt goes to standard error, so `--json` output on standard out stays parseable.
    err.println("Open this URL in a browser, sign in and authorize the application:");
    err.println();
    err.println("  " + signIn.authorizeUrl(requestToken));
    err.println();
    err.print("Then enter the PIN it shows: ");
    err.flush();
    String pin = readLine();
    if (pin == null || pin.isBlank()) {
      throw new ServicehooksCli.UsageException(
          "no PIN entered; run `servicehooks auth login` again");
    }
    if (!pin.strip().matches("[0-9A-Za-z]{1,64}")) {
      throw new ServicehooksCli.UsageException(
          "that is not a PIN (digits as the page shows them); run `servicehooks auth login` again");
    }
    UserCredentials credentials = signIn.accessToken(requestToken, pin.strip());
    file.write(credentials, client.baseUrl().toString(), top.clock().instant());
    if (top.env(ENV_TOKEN) != null || top.env(ENV_TOKEN_SECRET) != null) {
      err.println(
          "note: "
              + ENV_TOKEN
              + " is set in the environment and takes precedence over the saved credentials");
    }
    if (top.json) {
      ObjectNode node = Output.JSON.createObjectNode();
      node.put("user_id", credentials.userId());
      node.put("screen_name", credentials.screenName());
      node.put("credentials_file", file.path().toString());
      top.out().println(Output.JSON.writeValueAsString(node));
    } else {
      top.out()
          .println(
              "Signed in as @"
                  + credentials.screenName()
                  + " (user id "
                  + credentials.userId()
                  + "). Credentials saved to "
                  + file.path()
                  + " (mode 600).");
    }
    top.out().flush();
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "Show the user signed in and where the credentials come from (never a secret).")
  int status(@Mixin FileOption fileOption) throws IOException {
    Optional<Found> found = credentials(top, fileOption);
    PrintWriter out = top.out();
    if (top.json) {
      ObjectNode node = Output.JSON.createObjectNode();
      node.put("signed_in", found.isPresent());
      found.ifPresent(
          f -> {
            node.put("user_id", f.credentials().userId());
            node.put("screen_name", f.credentials().screenName());
            node.put("source", f.fromEnvironment() ? "environment" : "file");
            if (f.platform() != null) {
              node.put("base_url", f.platform().toString());
            }
          });
      node.put("credentials_file", file(top, fileOption).path().toString());
      out.println(Output.JSON.writeValueAsString(node));
    } else if (found.isEmpty()) {
      out.println(
          "Not signed in as a user (no credentials file at "
              + file(top, fileOption).path()
              + "). Run `servicehooks auth login`.");
    } else {
      UserCredentials c = found.get().credentials();
      String who =
          c.screenName() != null
              ? "@" + c.screenName() + " (user id " + c.userId() + ")"
              : "the user of the token in " + ENV_TOKEN + " (user not recorded)";
      out.println("Signed in as " + who + ".");
      out.println("Credentials from " + found.get().source() + ".");
      if (found.get().platform() != null) {
        out.println("Issued by " + found.get().platform() + ": used there only.");
      }
    }
    out.flush();
    return found.isPresent() ? ServicehooksCli.EXIT_OK : ServicehooksCli.EXIT_API_ERROR;
  }

  @Command(
      name = "logout",
      mixinStandardHelpOptions = true,
      description = {
        "Revoke the user's token on the platform that issued it (POST /1.1/oauth/invalidate_token)",
        "and, once that platform confirmed it, delete the credentials file. When the revocation",
        "fails the file is kept and the exit code is 1."
      })
  int logout(@Mixin FileOption fileOption) throws IOException {
    Found found = requireCredentials(top, fileOption);
    WebhookClient client = userPlatformClient(top, found);
    PrintWriter out = top.out();
    PrintWriter err = top.err();
    try {
      client.forUser(found.credentials()).invalidateToken();
      out.println("Token revoked on " + client.baseUrl() + ".");
    } catch (WebhookApiException e) {
      if (e.status() != 401 || errorCode(e.body()) != CODE_INVALID_TOKEN) {
        return revocationFailed(found, client, Printable.of(e.getMessage()));
      }
      // the issuing platform says the token is invalid or expired: it works nowhere
      err.println(
          "note: "
              + client.baseUrl()
              + " no longer accepts this token ("
              + Printable.of(e.platformMessage())
              + ")");
    } catch (IOException e) {
      return revocationFailed(
          found,
          client,
          "cannot reach the platform ("
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + Printable.of(e.getMessage()))
              + ")");
    }
    if (found.fromEnvironment()) {
      out.println(
          "The token came from the environment: unset "
              + ENV_TOKEN
              + " and "
              + ENV_TOKEN_SECRET
              + ".");
    } else {
      UserCredentialsFile file = file(top, fileOption);
      file.delete();
      out.println("Deleted " + file.path() + ".");
    }
    out.flush();
    return ServicehooksCli.EXIT_OK;
  }

  private int revocationFailed(Found found, WebhookClient client, String why) {
    PrintWriter err = top.err();
    err.println(
        "error: revocation failed on "
            + client.baseUrl()
            + ": "
            + why
            + "; the token may still work, so "
            + (found.fromEnvironment()
                ? "the credentials in the environment stay in force"
                : "the credentials file " + found.source() + " is kept")
            + ". Run `servicehooks auth logout` again once the platform can confirm it.");
    err.flush();
    return ServicehooksCli.EXIT_API_ERROR;
  }

  /** The platform's {@code errors[0].code} in an error body, or -1. */
  static int errorCode(String body) {
    try {
      JsonNode code = Output.JSON.readTree(body).path("errors").path(0).path("code");
      return code.canConvertToInt() ? code.asInt() : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private String readLine() throws IOException {
    // Not closed: it wraps the process's standard input.
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8));
    return reader.readLine();
  }

  /** {@code read} or {@code write}, in any case. */
  static final class AccessTypeConverter implements ITypeConverter<AccessType> {
    @Override
    public AccessType convert(String value) {
      try {
        return AccessType.valueOf(value.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("must be read or write, was '" + value + "'");
      }
    }
  }
}
