package io.servicehooks.kafkabroker;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka broker in KRaft mode (combined broker and controller, one node), run by Kafka's own
 * server classes in a process of its own: the broker of the benchmarks and the fleet tests, which
 * must be stopped and started again like a real one. {@link KafkaBrokerProcess} launches it.
 *
 * <pre>{@code
 * java -jar servicehooks-kafka-broker/target/kafka-broker.jar [--dir DIR] [--port N] [--host H]
 *     [--advertised-host H] [--exit-on-stdin-close]
 * }</pre>
 *
 * <p>When the broker answers, standard output gets exactly one line, its bootstrap address ({@code
 * 127.0.0.1:40123}); everything else goes to standard error. SIGTERM stops it cleanly (a controlled
 * shutdown, the logs closed), as does the end of standard input with {@code --exit-on-stdin-close}
 * (so a broker whose parent died does not outlive it).
 *
 * <p>{@code --dir} holds the broker's log directory and the configuration of its first start
 * ({@code server.properties}: ports, cluster id). Started again on the same directory the broker
 * takes the same ports and finds its topics and offsets; the other options are then ignored.
 * Without {@code --dir} a temporary directory is used and deleted at exit. {@code --port 0} (the
 * default) picks a free port; {@code --host} is the address the client listener binds ({@code
 * 127.0.0.1} by default; the controller listener is always on loopback), {@code --advertised-host}
 * the one clients are told to use (the bind address unless it is {@code 0.0.0.0}).
 */
public final class KafkaBrokerMain {

  private static final Logger log = LoggerFactory.getLogger(KafkaBrokerMain.class);
  private static final String CONFIG = "server.properties";

  private KafkaBrokerMain() {}

  /** Starts the broker; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    boolean temporary = !options.containsKey("dir");
    Path dir =
        temporary
            ? Files.createTempDirectory("servicehooks-kafka-")
            : Files.createDirectories(Path.of(options.get("dir")).toAbsolutePath());
    Path config = dir.resolve(CONFIG);
    Properties props;
    if (Files.exists(config)) {
      props = new Properties();
      try (InputStream in = Files.newInputStream(config)) {
        props.load(in);
      }
    } else {
      props = firstConfiguration(dir, options);
      try (OutputStream out = Files.newOutputStream(config)) {
        props.store(
            out, "servicehooks-kafka-broker: the first start's settings, kept for restarts");
      }
    }
    Path data = Path.of(props.getProperty("log.dirs"));
    if (!Files.exists(data.resolve("meta.properties"))) {
      int status =
          StorageTool.execute(
              new String[] {
                "format",
                "-t",
                props.getProperty("servicehooks.cluster.id"),
                "-c",
                config.toString()
              },
              System.err);
      if (status != 0) {
        throw new IllegalStateException("formatting " + data + " failed: " + status);
      }
    }
    Properties serverProps = new Properties();
    serverProps.putAll(props);
    serverProps.remove("servicehooks.cluster.id");
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(serverProps), Time.SYSTEM);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("stopping the broker");
                  server.shutdown();
                  server.awaitShutdown();
                  if (temporary) {
                    deleteTree(dir);
                  }
                  log.info("broker stopped");
                },
                "kafka-broker-shutdown"));
    if (options.containsKey("exit-on-stdin-close")) {
      Thread watch =
          new Thread(
              () -> {
                try {
                  while (System.in.read() >= 0) {
                    // nothing to read: the end of the stream is the signal
                  }
                } catch (IOException e) {
                  // a broken pipe ends it too
                }
                log.info("standard input closed: stopping");
                System.exit(0);
              },
              "kafka-broker-stdin");
      watch.setDaemon(true);
      watch.start();
    }
    server.startup();
    String bootstrap = props.getProperty("servicehooks.bootstrap");
    awaitAnswer(bootstrap);
    System.out.println(bootstrap);
    System.out.flush();
    log.info("broker ready at {} with its logs in {}", bootstrap, data);
    server.awaitShutdown();
  }

  /** The settings of a first start on {@code dir}: fresh ports (unless given), a new cluster id. */
  private static Properties firstConfiguration(Path dir, Map<String, String> options)
      throws IOException {
    String host = options.getOrDefault("host", "127.0.0.1");
    String advertised =
        options.getOrDefault("advertised-host", "0.0.0.0".equals(host) ? "127.0.0.1" : host);
    int port = Integer.parseInt(options.getOrDefault("port", "0"));
    if (port == 0) {
      port = freePort(host);
    }
    int controllerPort = freePort("127.0.0.1");
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", "1");
    p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.setProperty(
        "listeners",
        "PLAINTEXT://" + host + ":" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.setProperty("advertised.listeners", "PLAINTEXT://" + advertised + ":" + port);
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("log.dirs", dir.resolve("data").toString());
    // One node: every internal topic with one replica; fewer offsets partitions start faster.
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "4");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("transaction.state.log.num.partitions", "4");
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    p.setProperty("auto.create.topics.enable", "false");
    p.setProperty("servicehooks.cluster.id", Uuid.randomUuid().toString());
    p.setProperty("servicehooks.bootstrap", advertised + ":" + port);
    return p;
  }

  /** Waits (up to 60 s) until an admin client sees the broker in the cluster. */
  private static void awaitAnswer(String bootstrap) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = Admin.create(p)) {
      while (true) {
        try {
          if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (Exception e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the broker at " + bootstrap + " did not answer in 60 s");
        }
        TimeUnit.MILLISECONDS.sleep(200); // polling the broker we just started
      }
    }
  }

  private static int freePort(String host) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
      return s.getLocalPort();
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unknown argument " + a);
      }
      String name = a.substring(2);
      switch (name) {
        case "exit-on-stdin-close" -> options.put(name, "true");
        case "dir", "port", "host", "advertised-host" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException(a + " needs a value");
          }
          options.put(name, args[++i]);
        }
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    return options;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(KafkaBrokerMain::delete);
    } catch (IOException | UncheckedIOException e) {
      log.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  private static void delete(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
