package io.servicehooks.fleet;

import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A fleet of consumer jars ({@code samples/consumer}'s {@code servicehooks-consumer.jar}), each in
 * a network namespace of its own ({@link Network}), with the deliveries the test sent and their
 * answers ({@link Answer}), and what each instance's listeners ran (its {@code Handled} lines).
 */
final class Fleet implements AutoCloseable {

  static final String SECRET = "fleet-consumer-secret";
  static final int PORT = 8080;
  static final Path JAR = Path.of("../samples/consumer/target/servicehooks-consumer.jar");
  private static final Pattern HANDLED = Pattern.compile("Handled post\\.create event (\\S+)$");
  private static final Pattern ERROR = Pattern.compile("\"error\"\\s*:\\s*\"([a-z_]+)\"");

  final Network network;
  final Path logs;
  private final FileLock lock;
  private final JarProcesses jars = new JarProcesses(JAR);
  private final Map<Integer, Instance> instances = new TreeMap<>();
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final HttpClient client =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(2))
          .executor(Executors.newFixedThreadPool(16))
          .build();

  private Fleet(Network network, Path logs, FileLock lock) {
    this.network = network;
    this.logs = logs;
    this.lock = lock;
  }

  /**
   * Skips the calling test class, with one line saying why, where the fleet cannot run; else
   * removes a crashed run's leftovers and makes the network.
   */
  static Fleet create(String name, int size) throws IOException, InterruptedException {
    Optional<String> why = Network.unavailable().or(Stores::unavailable);
    if (why.isEmpty() && !Files.exists(JAR)) {
      why = Optional.of("no " + JAR + " (build samples/consumer first)");
    }
    if (why.isPresent()) {
      System.out.println("Fleet tests skipped: " + why.get());
      Assumptions.abort("Fleet tests skipped: " + why.get());
    }
    // One fleet per slot at a time: a slot's names, addresses and ports are fixed, and a second
    // run's clean-up would take the first one's namespaces away.
    FileChannel lock =
        FileChannel.open(Slot.LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    FileLock held;
    while ((held = lock.tryLock()) == null) {
      if (System.nanoTime() > deadline) {
        lock.close();
        System.out.println(
            "Fleet tests skipped: another fleet run held " + Slot.LOCK + " for 10 minutes");
        Assumptions.abort("another fleet run holds " + Slot.LOCK);
      }
      TimeUnit.MILLISECONDS.sleep(500); // polling a lock another process holds
    }
    try {
      Stores.removeLeftovers();
      Network network = Network.create();
      try {
        for (int n = 1; n <= size; n++) {
          network.addNamespace(n);
        }
        Path logs = Path.of("target/fleet/" + name);
        // The logs are the record of what ran: a previous run's lines would count as this run's.
        Network.must("rm", "-rf", logs.toString());
        Files.createDirectories(logs);
        return new Fleet(network, logs, held);
      } catch (IOException | RuntimeException e) {
        network.close();
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /** Starts instance {@code n} in its namespace with {@code env} and waits until it is healthy. */
  Instance start(int n, Map<String, String> env) throws IOException {
    Instance instance = launch(n, env);
    JarProcesses.awaitHealthy(instance.base(), Duration.ofSeconds(90));
    return instance;
  }

  /** Starts instance {@code n} in its namespace with {@code env}, without waiting for it. */
  Instance launch(int n, Map<String, String> env) throws IOException {
    return launch(n, env, SMALL_JVM);
  }

  /** The JVM options of an instance: small, C1 only, so that several start fast on two cores. */
  static final List<String> SMALL_JVM =
      List.of("-Xmx96m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /**
   * Starts instance {@code n} in its namespace with {@code env} and the JVM options {@code jvm},
   * without waiting for it.
   */
  Instance launch(int n, Map<String, String> env, List<String> jvm) throws IOException {
    Instance instance =
        instances.computeIfAbsent(n, k -> new Instance(k, logs.resolve(k + ".log")));
    Map<String, String> all = new HashMap<>(env);
    all.put("SERVICE_CONSUMER_SECRET", SECRET);
    all.put("PORT", String.valueOf(PORT));
    all.put("HOST", "0.0.0.0");
    instance.process =
        jars.launch()
            .via("ip", "netns", "exec", Network.ns(n))
            .jvm(jvm.toArray(String[]::new))
            .env(all)
            .appendOutput(instance.log)
            .start();
    return instance;
  }

  /** SIGTERM to instance {@code n}: its shutdown hook drains what it holds; waits up to 30 s. */
  void stop(int n) throws InterruptedException {
    Instance instance = instances.get(n);
    if (instance != null && instance.process != null && instance.process.isAlive()) {
      instance.process.destroy();
      if (!instance.process.waitFor(30, TimeUnit.SECONDS)) {
        instance.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  Instance instance(int n) {
    return instances.get(n);
  }

  /**
   * Starts every instance of {@code envs} (instance number to environment) in its namespace at
   * once, then waits until each is healthy: the JVMs start side by side.
   */
  void startAll(Map<Integer, Map<String, String>> envs) throws IOException {
    for (Map.Entry<Integer, Map<String, String>> e : envs.entrySet()) {
      launch(e.getKey(), e.getValue());
    }
    for (int n : envs.keySet()) {
      JarProcesses.awaitHealthy(instances.get(n).base(), Duration.ofSeconds(90));
    }
  }

  /** One signed delivery of event {@code id} to instance {@code n}; its answer, recorded. */
  CompletableFuture<Answer> send(int n, String id) {
    return send(n, id, body(id));
  }

  /** One signed delivery of {@code body} (event {@code id}) to instance {@code n}, recorded. */
  CompletableFuture<Answer> send(int n, String id, String body) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(instances.get(n).base() + "/webhooks"))
            .timeout(Duration.ofSeconds(15))
            .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build();
    long began = System.nanoTime();
    return client
        .sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .handle(
            (response, failure) -> {
              long millis = (System.nanoTime() - began) / 1_000_000;
              Answer a;
              if (failure != null) {
                a = new Answer(id, n, 0, failure.getClass().getSimpleName(), millis, began);
              } else {
                Matcher m = ERROR.matcher(response.body());
                a =
                    new Answer(
                        id, n, response.statusCode(), m.find() ? m.group(1) : "", millis, began);
              }
              answers.add(a);
              return a;
            });
  }

  /** The body of event {@code id}: one {@code post.create} activity event. */
  static String body(String id) {
    return Events.activity(
        id,
        "post.create",
        Map.of("user_id", "2244994945"),
        null,
        Map.of("id", String.valueOf(Math.abs(id.hashCode())), "text", "fleet " + id));
  }

  /** Sends and waits for the answer (at most 20 s). */
  Answer sendNow(int n, String id) throws Exception {
    return send(n, id).get(20, TimeUnit.SECONDS);
  }

  List<Answer> answers() {
    return new ArrayList<>(answers);
  }

  /** Event id to how many times the listeners ran it, over every instance and restart. */
  Map<String, Integer> handled() throws IOException {
    Map<String, Integer> counts = new TreeMap<>();
    for (Instance i : instances.values()) {
      for (String id : JarProcesses.matches(i.log, HANDLED)) {
        counts.merge(id, 1, Integer::sum);
      }
    }
    return counts;
  }

  /** Event id to how many times instance {@code n}'s listeners ran it, over its restarts. */
  Map<String, Integer> handledBy(int n) throws IOException {
    Map<String, Integer> counts = new TreeMap<>();
    for (String id : JarProcesses.matches(instances.get(n).log, HANDLED)) {
      counts.merge(id, 1, Integer::sum);
    }
    return counts;
  }

  @Override
  public void close() throws Exception {
    try {
      jars.close();
    } finally {
      try {
        network.close();
      } finally {
        lock.channel().close();
      }
    }
  }

  /** One consumer process in namespace {@code shf<s>-<n>}. */
  static final class Instance {
    final int n;
    final Path log;
    Process process;

    Instance(int n, Path log) {
      this.n = n;
      this.log = log;
    }

    String base() {
      return "http://" + Network.serviceAddress(n) + ":" + PORT;
    }

    /** SIGSTOP ({@code "STOP"}) or SIGCONT ({@code "CONT"}) to the JVM. */
    void signal(String signal) throws IOException {
      Network.must("kill", "-" + signal, String.valueOf(process.pid()));
    }

    /** SIGKILL: no shutdown hook, no drain. */
    void kill9() throws InterruptedException {
      process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
    }
  }

  /**
   * One answer to one delivery.
   *
   * @param status the HTTP status, 0 when none came (refused, reset, time-out)
   * @param error the JSON error code of a non-2xx answer, or the failure's type
   * @param millis from sending to the whole answer
   * @param sentNanos {@link System#nanoTime()} when it was sent
   */
  record Answer(String id, int instance, int status, String error, long millis, long sentNanos) {
    boolean ok() {
      return status >= 200 && status < 300;
    }
  }
}
