package io.servicehooks.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The fleet's own Redis and PostgreSQL: the machine's {@code redis-server} and PostgreSQL binaries,
 * started by the harness on the {@link Slot}'s fixed ports, listening on loopback and on the store
 * bridge ({@link Network#STORE_HOST}) only, so the namespaces reach them and nothing outside does.
 * Both can be stopped and started again, which the shared test servers never are. Their files live
 * under {@link #DIR}, removed at the start of the next run with any server a crashed run left.
 */
final class Stores {

  static final Path DIR = Slot.DIR;
  static final int REDIS_PORT = Slot.port(16379);
  static final int POSTGRES_PORT = Slot.port(15432);

  private Stores() {}

  /** Why the stores cannot run here, or empty. */
  static Optional<String> unavailable() {
    for (String tool : List.of("redis-server", "redis-cli", "initdb", "pg_ctl", "runuser")) {
      if (which(tool).isEmpty()) {
        return Optional.of("no `" + tool + "` on PATH");
      }
    }
    return Optional.empty();
  }

  /** Stops what a crashed run left and empties {@link #DIR}. */
  static void removeLeftovers() throws IOException {
    Path pid = DIR.resolve("redis.pid");
    if (Files.exists(pid)) {
      Network.run("kill", "-9", Files.readString(pid).strip());
    }
    if (Files.exists(DIR.resolve("pg/postmaster.pid"))) {
      Network.run(
          "runuser",
          "-u",
          "postgres",
          "--",
          "pg_ctl",
          "-D",
          DIR.resolve("pg").toString(),
          "-m",
          "immediate",
          "stop");
    }
    Network.run("rm", "-rf", DIR.toString());
    Files.createDirectories(DIR);
  }

  private static Optional<String> which(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return Optional.of(Path.of(dir, tool).toString());
      }
    }
    return Optional.empty();
  }

  /** A redis-server without persistence (the default of a cache-minded deployment). */
  static final class Redis implements AutoCloseable {
    private Process process;

    String url() {
      return "redis://" + Network.STORE_HOST + ":" + REDIS_PORT;
    }

    synchronized void start() throws IOException {
      process =
          new ProcessBuilder(
                  "redis-server",
                  "--port",
                  String.valueOf(REDIS_PORT),
                  "--bind",
                  "127.0.0.1",
                  Network.STORE_HOST,
                  "--protected-mode",
                  "no",
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--maxmemory-policy",
                  "noeviction",
                  "--dir",
                  DIR.toString())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(DIR.resolve("redis.log").toFile()))
              .start();
      Files.writeString(DIR.resolve("redis.pid"), String.valueOf(process.pid()));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!answers()) {
        if (System.nanoTime() > deadline || !process.isAlive()) {
          throw new IOException("redis-server did not start; see " + DIR.resolve("redis.log"));
        }
        pause(100);
      }
    }

    /** SIGKILL: what a crash or an OOM kill does; nothing written anywhere (no persistence). */
    synchronized void kill() throws InterruptedException {
      if (process != null) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        process = null;
        try {
          Files.deleteIfExists(DIR.resolve("redis.pid"));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }

    private boolean answers() {
      try {
        return Network.run("redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(REDIS_PORT), "ping")
            .output()
            .contains("PONG");
      } catch (IOException e) {
        return false;
      }
    }

    /** One INFO field ({@code used_memory}, say), by redis-cli on loopback. */
    String info(String field) throws IOException {
      for (String line :
          Network.run("redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(REDIS_PORT), "info")
              .output()
              .split("\r?\n")) {
        if (line.startsWith(field + ":")) {
          return line.substring(field.length() + 1).strip();
        }
      }
      return "";
    }

    @Override
    public void close() throws InterruptedException {
      kill();
    }
  }

  /** A PostgreSQL cluster of the run's own, run as the {@code postgres} user. */
  static final class Postgres implements AutoCloseable {
    private final Path data = DIR.resolve("pg");

    /** The postmaster's pid, from {@code postmaster.pid}. */
    long pid() throws IOException {
      return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).strip());
    }

    /** The JDBC URL an instance in a namespace uses. */
    String url() {
      return "jdbc:postgresql://"
          + Network.STORE_HOST
          + ":"
          + POSTGRES_PORT
          + "/postgres?user=postgres";
    }

    void init() throws IOException {
      init(false);
    }

    /**
     * Makes and starts the cluster; {@code syncToDisk} keeps PostgreSQL's defaults ({@code fsync}
     * and {@code full_page_writes} on), so its WAL and fsyncs are what a production server writes;
     * otherwise both are off, for speed.
     */
    void init(boolean syncToDisk) throws IOException {
      Files.createDirectories(data);
      Network.must("chown", "-R", "postgres:postgres", DIR.toString());
      Network.must(
          "runuser",
          "-u",
          "postgres",
          "--",
          "initdb",
          "-D",
          data.toString(),
          "-A",
          "trust",
          "-U",
          "postgres",
          "--no-sync");
      Files.writeString(
          data.resolve("pg_hba.conf"),
          "host all all 10.233.0.0/16 trust\n",
          java.nio.file.StandardOpenOption.APPEND);
      Files.writeString(
          data.resolve("postgresql.conf"),
          "listen_addresses = '127.0.0.1,"
              + Network.STORE_HOST
              + "'\n"
              + "port = "
              + POSTGRES_PORT
              + "\n"
              + "unix_socket_directories = '"
              + data
              + "'\n"
              // Speed only: the stops below are of the server, never of this machine, so what
              // reached the OS survives them. synchronous_commit stays on: a commit is in the WAL
              // before it is answered, or an immediate stop would lose acknowledged events.
              + (syncToDisk ? "" : "fsync = off\nfull_page_writes = off\n")
              + "max_connections = 100\nshared_buffers = 32MB\n",
          java.nio.file.StandardOpenOption.APPEND);
      pgCtl("-l", DIR.resolve("pg.log").toString(), "-w", "-t", "60", "start");
    }

    /** {@code pg_ctl restart -m fast} or {@code -m immediate} (a crash: no checkpoint). */
    void restart(String mode) throws IOException {
      pgCtl("-m", mode, "-w", "-t", "60", "-l", DIR.resolve("pg.log").toString(), "restart");
    }

    void stop(String mode) throws IOException {
      pgCtl("-m", mode, "-w", "-t", "60", "stop");
    }

    void start() throws IOException {
      pgCtl("-l", DIR.resolve("pg.log").toString(), "-w", "-t", "60", "start");
    }

    private void pgCtl(String... args) throws IOException {
      List<String> command =
          new java.util.ArrayList<>(
              List.of("runuser", "-u", "postgres", "--", "pg_ctl", "-D", data.toString()));
      command.addAll(List.of(args));
      Network.must(command.toArray(String[]::new));
    }

    /** The single number {@code sql} answers, over loopback. */
    long number(String sql) throws SQLException {
      Properties p = new Properties();
      p.setProperty("user", "postgres");
      p.setProperty("connectTimeout", "3");
      p.setProperty("socketTimeout", "8");
      try (Connection c =
              DriverManager.getConnection(
                  "jdbc:postgresql://127.0.0.1:" + POSTGRES_PORT + "/postgres", p);
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery(sql)) {
        r.next();
        return r.getLong(1);
      }
    }

    @Override
    public void close() throws IOException {
      if (Files.exists(data.resolve("postmaster.pid"))) {
        stop("immediate");
      }
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis); // polling a child process's port, not waiting on the code under test
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
