package io.servicehooks.kafkabroker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A Kafka broker ({@link KafkaBrokerMain}) in a child JVM with its own class path ({@code
 * kafka-broker.jar}), for benchmarks and fleet tests: {@link #start()} waits for its bootstrap
 * address, {@link #stop()} ends it with SIGTERM (a clean shutdown), {@link #kill()} with SIGKILL,
 * and {@link #start()} again brings it back on the same log directory and port. {@link #close()}
 * stops it and deletes the directory when this object made it. The child also stops when this JVM
 * dies (its standard input closes), so no broker outlives its test.
 *
 * <pre>{@code
 * try (KafkaBrokerProcess broker = KafkaBrokerProcess.builder().build().start()) {
 *   String servers = broker.bootstrapServers();
 *   broker.stop();   // gone: connections refused
 *   broker.start();  // back, same port, same topics and offsets
 * }
 * }</pre>
 *
 * <p>Needs nothing but the JDK on this side: {@code servicehooks-kafka-broker}'s Kafka dependencies
 * are optional, and the jar is found beside this class's own jar or classes directory (the module's
 * {@code target/}), or given with {@link Builder#jar}, or by the system property or environment
 * variable {@code KAFKA_BROKER_JAR}.
 */
public final class KafkaBrokerProcess implements AutoCloseable {

  /** The shaded jar's file name in the module's {@code target/}. */
  public static final String JAR_NAME = "kafka-broker.jar";

  private final Path jar;
  private final Path dir;
  private final boolean ownDir;
  private final List<String> arguments;
  private final List<String> jvmOptions;
  private final Path log;
  private final Duration startTimeout;
  private Process process;
  private String bootstrapServers;

  private KafkaBrokerProcess(Builder b, Path dir, boolean ownDir) {
    this.jar = b.jar != null ? b.jar : defaultJar();
    this.dir = dir;
    this.ownDir = ownDir;
    this.jvmOptions = List.copyOf(b.jvmOptions);
    this.log = b.log != null ? b.log : dir.resolve("broker.log");
    this.startTimeout = b.startTimeout;
    List<String> args = new ArrayList<>(List.of("--dir", dir.toString(), "--exit-on-stdin-close"));
    args.addAll(List.of("--port", String.valueOf(b.port), "--host", b.host));
    if (b.advertisedHost != null) {
      args.addAll(List.of("--advertised-host", b.advertisedHost));
    }
    this.arguments = List.copyOf(args);
  }

  /** A builder: loopback, a free port, a temporary log directory deleted on {@link #close()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the broker (again, after {@link #stop()} or {@link #kill()}: same directory, same port)
   * and waits until it answers; its output is appended to the log file.
   *
   * @return this
   * @throws IOException when it exits or does not answer within the start time-out
   */
  public synchronized KafkaBrokerProcess start() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("the broker is running");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(arguments);
    Process p =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    process = p;
    CompletableFuture<String> firstLine =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line = out.readLine();
                // Keep reading (nothing more is expected) so the child never blocks on a full pipe.
                Thread drain =
                    new Thread(
                        () -> {
                          try {
                            while (out.readLine() != null) {
                              // discarded
                            }
                          } catch (IOException e) {
                            // the child is gone
                          }
                        },
                        "kafka-broker-stdout");
                drain.setDaemon(true);
                drain.start();
                return line;
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    String line;
    try {
      line = firstLine.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      p.destroyForcibly();
      throw new IOException(
          "the Kafka broker did not start within " + startTimeout + "; see " + log, e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the Kafka broker started", e);
    }
    if (line == null || line.isBlank()) {
      throw new IOException("the Kafka broker exited before it answered; see " + log);
    }
    bootstrapServers = line.strip();
    return this;
  }

  /** Where clients reach the broker ({@code host:port}); the same across restarts. */
  public synchronized String bootstrapServers() {
    if (bootstrapServers == null) {
      throw new IllegalStateException("not started yet");
    }
    return bootstrapServers;
  }

  /** The broker's directory: its log directory and the configuration of its first start. */
  public Path directory() {
    return dir;
  }

  /** The file the broker's log is appended to. */
  public Path log() {
    return log;
  }

  /** Whether the broker process is running. */
  public synchronized boolean running() {
    return process != null && process.isAlive();
  }

  /** The broker's process id, while it runs. */
  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException("not started");
    }
    return process.pid();
  }

  /** SIGTERM and a wait (up to 60 s, then SIGKILL): a clean, controlled shutdown. */
  public synchronized void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** SIGKILL: no shutdown at all, as a crash; the next start recovers the logs. */
  public synchronized void kill() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Stops the broker, then deletes its directory if this object created it. */
  @Override
  public void close() throws InterruptedException {
    stop();
    if (ownDir) {
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(java.io.File::delete);
      } catch (IOException e) {
        // left for the system's temporary-file clean-up
      }
    }
  }

  @Override
  public String toString() {
    return "KafkaBrokerProcess["
        + (bootstrapServers == null ? "not started" : bootstrapServers)
        + "]";
  }

  /** {@code kafka-broker.jar} from KAFKA_BROKER_JAR, or next to this class's jar or classes. */
  static Path defaultJar() {
    String given = System.getProperty("KAFKA_BROKER_JAR", System.getenv("KAFKA_BROKER_JAR"));
    if (given != null && !given.isBlank()) {
      return Path.of(given);
    }
    try {
      Path here =
          Path.of(
              KafkaBrokerProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path candidate = here.getParent().resolve(JAR_NAME);
      if (Files.exists(candidate)) {
        return candidate;
      }
      throw new IllegalStateException(
          "no "
              + candidate
              + ": build servicehooks-kafka-broker (package), or set KAFKA_BROKER_JAR");
    } catch (URISyntaxException | RuntimeException e) {
      if (e instanceof IllegalStateException ise) {
        throw ise;
      }
      throw new IllegalStateException("cannot find " + JAR_NAME + "; set KAFKA_BROKER_JAR", e);
    }
  }

  /** Settings of a {@link KafkaBrokerProcess}. */
  public static final class Builder {
    private Path jar;
    private Path dir;
    private int port;
    private String host = "127.0.0.1";
    private String advertisedHost;
    private Path log;
    private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx512m", "-Xss512k"));
    private Duration startTimeout = Duration.ofSeconds(120);

    private Builder() {}

    /** The shaded broker jar (default: found as the class comment says). */
    public Builder jar(Path jar) {
      this.jar = Objects.requireNonNull(jar, "jar");
      return this;
    }

    /** The broker's directory, kept on {@link #close()} (default: a temporary one, deleted). */
    public Builder directory(Path dir) {
      this.dir = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /** The client port, fixed across restarts (default 0: a free one, chosen at first start). */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** The address the client listener binds (default 127.0.0.1). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The address clients are told to use (default: the bind address). */
    public Builder advertisedHost(String advertisedHost) {
      this.advertisedHost = Objects.requireNonNull(advertisedHost, "advertisedHost");
      return this;
    }

    /** Where the broker's log is appended (default: {@code broker.log} in its directory). */
    public Builder log(Path log) {
      this.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /** JVM options of the child, replacing the default {@code -Xmx512m -Xss512k}. */
    public Builder jvmOptions(String... options) {
      jvmOptions.clear();
      jvmOptions.addAll(List.of(options));
      return this;
    }

    /** How long {@link KafkaBrokerProcess#start()} waits for the broker (default 120 s). */
    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
      return this;
    }

    /** The broker, not started yet: {@link KafkaBrokerProcess#start()}. */
    public KafkaBrokerProcess build() throws IOException {
      boolean own = dir == null;
      Path d =
          own
              ? Files.createTempDirectory("servicehooks-kafka-")
              : Files.createDirectories(dir.toAbsolutePath());
      return new KafkaBrokerProcess(this, d, own);
    }
  }
}
