package io.servicehooks.testsupport;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a packaged jar as a user would ({@code java -jar app.jar args...}, the test JVM's own {@code
 * java}), and stops every process it started on {@link #close()}: SIGTERM, up to 30 s for a clean
 * stop, then SIGKILL. One per test class or test, closed in {@code @AfterEach}/{@code @AfterAll}:
 *
 * <pre>{@code
 * private final JarProcesses jars = new JarProcesses(Path.of("target/app.jar"));
 * Process p = jars.launch().env("PORT", "8080").without("SECRET").output(log).start();
 * JarProcesses.awaitHealthy("http://127.0.0.1:8080", Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>The caller declares {@code org.awaitility:awaitility} in test scope for {@link #awaitHealthy}.
 */
public final class JarProcesses implements AutoCloseable, AfterEachCallback {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path jar;
  private final List<Process> started = new ArrayList<>();

  /** Launches {@code jar}, a path relative to the module's directory or absolute. */
  public JarProcesses(Path jar) {
    this.jar = jar;
  }

  /** A launch of the jar, configured before {@link Launch#start()}. */
  public Launch launch() {
    return new Launch();
  }

  /** The {@code java} executable of the JVM running the tests. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Waits up to {@code atMost} until {@code GET baseUrl/health} answers 200 (each try bounded to 2
   * s, its whole answer included; refused connections are retried).
   */
  public static void awaitHealthy(String baseUrl, Duration atMost) {
    HttpRequest health =
        HttpRequest.newBuilder(URI.create(baseUrl + "/health"))
            .timeout(Duration.ofSeconds(2))
            .build();
    await()
        .atMost(atMost)
        .ignoreExceptions()
        .until(
            () -> {
              var answer = CLIENT.sendAsync(health, HttpResponse.BodyHandlers.discarding());
              try {
                return answer.get(2, TimeUnit.SECONDS).statusCode() == 200;
              } finally {
                answer.cancel(true);
              }
            });
  }

  /**
   * The first group of {@code pattern} in each line of {@code output} where it is found, in order,
   * repeats kept; none when the file does not exist yet.
   */
  public static List<String> matches(Path output, Pattern pattern) throws IOException {
    List<String> found = new ArrayList<>();
    if (!Files.exists(output)) {
      return found;
    }
    for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
      Matcher m = pattern.matcher(line);
      if (m.find()) {
        found.add(m.group(1));
      }
    }
    return found;
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    close();
  }

  /** Stops every process still running: SIGTERM, 30 s for a clean stop, then SIGKILL. */
  @Override
  public synchronized void close() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  /** One launch: environment, arguments and where the output goes. */
  public final class Launch {
    private final Map<String, String> env = new LinkedHashMap<>();
    private final Set<String> without = new LinkedHashSet<>();
    private final List<String> args = new ArrayList<>();
    private final List<String> via = new ArrayList<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private ProcessBuilder.Redirect output;

    private Launch() {}

    /** Sets {@code name} in the child's environment (it inherits the test JVM's otherwise). */
    public Launch env(String name, String value) {
      env.put(name, value);
      return this;
    }

    /** Sets every entry of {@code variables} in the child's environment. */
    public Launch env(Map<String, String> variables) {
      env.putAll(variables);
      return this;
    }

    /** Removes {@code names} from the inherited environment (set ones still win). */
    public Launch without(String... names) {
      without.addAll(List.of(names));
      return this;
    }

    /**
     * A command that runs {@code java} for us, before it on the command line: {@code ip netns exec
     * ns} runs the jar in a network namespace (it execs, so the process is still the JVM and a
     * SIGKILL reaches it).
     */
    public Launch via(String... command) {
      via.addAll(List.of(command));
      return this;
    }

    /** JVM options before {@code -jar}, as {@code -Xmx128m}. */
    public Launch jvm(String... options) {
      jvmOptions.addAll(List.of(options));
      return this;
    }

    /** Command-line arguments after {@code -jar app.jar}. */
    public Launch args(String... arguments) {
      args.addAll(List.of(arguments));
      return this;
    }

    /** Standard output and error, merged, to {@code file} (replaced). */
    public Launch output(Path file) {
      output = ProcessBuilder.Redirect.to(file.toFile());
      return this;
    }

    /** Standard output and error, merged, appended to {@code file} (one log across restarts). */
    public Launch appendOutput(Path file) {
      output = ProcessBuilder.Redirect.appendTo(file.toFile());
      return this;
    }

    /**
     * Starts the process; {@link JarProcesses#close()} stops it. Without {@link #output} the merged
     * output is left on {@link Process#getInputStream()} for the test to read.
     */
    public Process start() throws IOException {
      List<String> command = new ArrayList<>(via);
      command.add(java());
      command.addAll(jvmOptions);
      command.addAll(List.of("-jar", jar.toString()));
      command.addAll(args);
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      if (output != null) {
        pb.redirectOutput(output);
      }
      without.forEach(pb.environment()::remove);
      pb.environment().putAll(env);
      Process p = pb.start();
      synchronized (JarProcesses.this) {
        started.add(p);
      }
      return p;
    }
  }
}
