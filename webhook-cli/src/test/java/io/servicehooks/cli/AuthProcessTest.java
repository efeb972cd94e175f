package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole PIN flow as a user runs it: {@code servicehooks simulate} in one process, {@code
 * servicehooks auth login} in another with the PIN typed on its standard input after "the user"
 * (this test, over HTTP) authorized the application on the simulator's page; then {@code
 * subscriptions create --as-user}, {@code auth status}, a mode-0644 file refused, {@code auth
 * logout}, and the revoked token refused.
 */
final class AuthProcessTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path home;

  private final List<Process> started = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopProcesses() {
    started.forEach(Process::destroy);
  }

  private Process start(Map<String, String> environment, String... args) throws IOException {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Short-lived JVMs: the C1 compiler alone and the serial collector start them faster.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(classPath);
    command.add(ServicehooksCli.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(environment);
    Process process = builder.start();
    started.add(process);
    return process;
  }

  /** The lines a stream prints, read on a thread of its own so a test wait stays bounded. */
  private static BlockingQueue<String> lines(java.io.InputStream stream) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException closed) {
                // the process ended
              }
            });
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  private static String awaitLine(BlockingQueue<String> lines, Pattern pattern, List<String> seen)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        break;
      }
      seen.add(line);
      if (pattern.matcher(line).find()) {
        return line;
      }
    }
    throw new AssertionError("no line matching " + pattern + " in " + seen);
  }

  private record Result(int exitCode, String out, String err) {}

  private Result runToEnd(Map<String, String> environment, String... args) throws Exception {
    Process process = start(environment, args);
    process.getOutputStream().close();
    var out = process.getInputStream();
    var err = process.getErrorStream();
    var outText = java.util.concurrent.CompletableFuture.supplyAsync(() -> readAll(out));
    var errText = java.util.concurrent.CompletableFuture.supplyAsync(() -> readAll(err));
    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("process ended").isTrue();
    return new Result(
        process.exitValue(),
        outText.get(WAIT.toSeconds(), TimeUnit.SECONDS),
        errText.get(WAIT.toSeconds(), TimeUnit.SECONDS));
  }

  private static String readAll(java.io.InputStream stream) {
    try {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Plays the user on the simulator's authorize page: shows it, clicks "Authorize app". */
  private String authorizeAndReadPin(URI page) throws Exception {
    HttpResponse<String> shown =
        http.send(HttpRequest.newBuilder(page).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(shown.statusCode()).isEqualTo(200);
    Matcher token =
        Pattern.compile("name=\"oauth_token\" value=\"([^\"]+)\"").matcher(shown.body());
    assertThat(token.find()).as(shown.body()).isTrue();
    HttpResponse<String> decided =
        http.send(
            HttpRequest.newBuilder(page)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "oauth_token="
                            + URLEncoder.encode(token.group(1), StandardCharsets.UTF_8)
                            + "&screen_name=alice&authorize=1"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    Matcher pin = Pattern.compile("id=\"oauth_pin\">([0-9]+)<").matcher(decided.body());
    assertThat(pin.find()).as(decided.body()).isTrue();
    return pin.group(1);
  }

  @Test
  void pinFlow_cliAgainstSimulateProcess_signInActRevoke() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("HOME", home.toString());
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));

    Process simulate = start(env, "simulate", "--port", "0");
    BlockingQueue<String> simulatorOut = lines(simulate.getInputStream());
    lines(simulate.getErrorStream());
    List<String> seen = new ArrayList<>();
    for (String name : List.of("SERVICE_API_BASE_URL", "SERVICE_API_KEY", "SERVICE_API_SECRET")) {
      String line = awaitLine(simulatorOut, Pattern.compile("^export " + name + "="), seen);
      env.put(name, line.substring(line.indexOf('=') + 1));
    }

    // auth login: the URL on standard error, the PIN typed on standard input
    Process login = start(env, "auth", "login", "--access-type", "write");
    BlockingQueue<String> loginOut = lines(login.getInputStream());
    BlockingQueue<String> loginErr = lines(login.getErrorStream());
    List<String> loginSeen = new ArrayList<>();
    String urlLine =
        awaitLine(loginErr, Pattern.compile("/oauth/authorize\\?oauth_token="), loginSeen);
    String pin = authorizeAndReadPin(URI.create(urlLine.strip()));
    try (OutputStream keyboard = login.getOutputStream()) {
      keyboard.write((pin + "\n").getBytes(StandardCharsets.UTF_8));
    }
    assertThat(login.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String signedIn = awaitLine(loginOut, Pattern.compile("Signed in as @alice"), loginSeen);
    assertThat(login.exitValue()).as(String.join("\n", loginSeen)).isZero();

    Path file = home.resolve(".config/servicehooks/credentials.json");
    assertThat(signedIn).contains(file.toString());
    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    JsonNode saved = JSON.readTree(file.toFile());
    String userId = saved.get("user_id").asText();
    String secret = saved.get("oauth_token_secret").asText();

    // a private subscription in user context, and the same refused with the app-only token
    Result asUser =
        runToEnd(
            env,
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            userId);
    Result appOnly =
        runToEnd(
            env, "subscriptions", "create", "--event-type", "dm.received", "--user-id", userId);
    assertThat(asUser.exitCode()).as(asUser.toString()).isZero();
    assertThat(asUser.out()).contains("dm.received");
    assertThat(appOnly.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(appOnly.err()).contains("need user context");

    // status names the user and the file, never the secret
    Result status = runToEnd(env, "auth", "status");
    assertThat(status.exitCode()).isZero();
    assertThat(status.out()).contains("@alice", userId, file.toString());
    assertThat(status.out() + status.err()).doesNotContain(secret);

    // a file others may read is refused, with the chmod to run
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    Result loose = runToEnd(env, "auth", "status");
    assertThat(loose.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(loose.err()).contains("mode 0644", "chmod 600 " + file);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

    // logout revokes and deletes; the old token is refused afterwards
    Result logout = runToEnd(env, "auth", "logout");
    assertThat(logout.exitCode()).as(logout.toString()).isZero();
    assertThat(file).doesNotExist();
    env.put("SERVICE_USER_TOKEN", saved.get("oauth_token").asText());
    env.put("SERVICE_USER_TOKEN_SECRET", secret);
    Result revoked =
        runToEnd(
            env,
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            userId);
    assertThat(revoked.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(revoked.err()).contains("Invalid or expired token").doesNotContain(secret);
    assertThat(new File(home.toFile(), ".config/servicehooks")).isDirectory();
  }
}
