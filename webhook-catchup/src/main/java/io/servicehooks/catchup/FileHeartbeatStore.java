package io.servicehooks.catchup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The heartbeat in a small local file, {@code key=value} lines:
 *
 * <pre>
 * # servicehooks catch-up state, format 1
 * heartbeat=2026-03-18T10:15:30Z
 * job.key=0b6c...      (the job lines only while a job is in progress)
 * job.id=1876543210
 * job.from=2026-03-18T09:40:00Z
 * job.until=2026-03-18T10:15:30Z
 * job.attempt=1
 * job.askedAt=2026-03-18T10:15:30Z
 * job.retryAt=...      (only while waiting for a retry)
 * </pre>
 *
 * A change reads the file, then writes a temporary file beside it and moves it over the old one
 * atomically, all under the lock {@code <path>.lock}; leadership is the lock {@code <path>.leader}.
 * Within one JVM, where file locks do not exclude each other, a lock per path stands in.
 */
final class FileHeartbeatStore implements HeartbeatStore {

  private static final Duration LOCK_WAIT = Duration.ofSeconds(5);
  private static final Map<Path, ReentrantLock> CHANGES = new ConcurrentHashMap<>();
  private static final Set<Path> LEADERS = ConcurrentHashMap.newKeySet();

  private final Path path;
  private final Path changeLock;
  private final Path leaderLock;

  FileHeartbeatStore(Path path) {
    this.path = path.toAbsolutePath().normalize();
    this.changeLock = this.path.resolveSibling(this.path.getFileName() + ".lock");
    this.leaderLock = this.path.resolveSibling(this.path.getFileName() + ".leader");
  }

  @Override
  public Snapshot read() throws IOException {
    return parse(load());
  }

  @Override
  public boolean beat(Instant at) throws IOException {
    return change(
        state -> {
          Instant heartbeat = instant(state.get("heartbeat"));
          if (state.containsKey("job.key") || heartbeat != null && !at.isAfter(heartbeat)) {
            return false;
          }
          state.put("heartbeat", at.toString());
          return true;
        });
  }

  @Override
  public Optional<Leadership> tryLead(Duration lease) throws IOException {
    if (!LEADERS.add(leaderLock)) {
      return Optional.empty();
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(leaderLock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        LEADERS.remove(leaderLock);
        return Optional.empty();
      }
      FileChannel held = channel;
      return Optional.of(
          () -> {
            try {
              held.close(); // releases the lock
            } catch (IOException e) {
              // the lock ends with the channel or the process anyway
            } finally {
              LEADERS.remove(leaderLock);
            }
          });
    } catch (IOException | OverlappingFileLockException e) {
      if (channel != null) {
        channel.close();
      }
      LEADERS.remove(leaderLock);
      if (e instanceof IOException io) {
        throw io;
      }
      return Optional.empty(); // held through another channel of this JVM
    }
  }

  @Override
  public void putJob(CatchUpJob job) throws IOException {
    change(
        state -> {
          writeJob(state, job);
          return true;
        });
  }

  @Override
  public boolean finishJob(String key, CatchUpJob next, Instant heartbeat) throws IOException {
    return change(
        state -> {
          if (!key.equals(state.get("job.key"))) {
            return false;
          }
          writeJob(state, next);
          Instant stored = instant(state.get("heartbeat"));
          if (heartbeat != null && (stored == null || heartbeat.isAfter(stored))) {
            state.put("heartbeat", heartbeat.toString());
          }
          return true;
        });
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "FileHeartbeatStore[" + path + "]";
  }

  private interface Change {
    boolean apply(Map<String, String> state) throws IOException;
  }

  /** Read, change and replace the file under both locks; writes only when the change says so. */
  private boolean change(Change change) throws IOException {
    ReentrantLock local = CHANGES.computeIfAbsent(changeLock, p -> new ReentrantLock());
    try {
      if (!local.tryLock(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException("the heartbeat file stayed locked for " + LOCK_WAIT + ": " + path);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for the heartbeat file lock", e);
    }
    try (FileChannel channel =
            FileChannel.open(changeLock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = fileLock(channel)) {
      Map<String, String> state = load();
      if (!change.apply(state)) {
        return false;
      }
      store(state);
      return true;
    } finally {
      local.unlock();
    }
  }

  /** Another process holds it for a few milliseconds at most; wait boundedly. */
  private FileLock fileLock(FileChannel channel) throws IOException {
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    while (true) {
      FileLock lock = channel.tryLock();
      if (lock != null) {
        return lock;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the heartbeat file stayed locked for " + LOCK_WAIT + ": " + path);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for the heartbeat file lock", e);
      }
    }
  }

  private Map<String, String> load() throws IOException {
    Map<String, String> state = new LinkedHashMap<>();
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return state;
    }
    for (String line : text.split("\n")) {
      line = line.strip();
      int eq = line.indexOf('=');
      if (line.isEmpty() || line.startsWith("#") || eq < 1) {
        continue;
      }
      state.put(line.substring(0, eq), line.substring(eq + 1));
    }
    return state;
  }

  private void store(Map<String, String> state) throws IOException {
    StringBuilder text = new StringBuilder("# servicehooks catch-up state, format 1\n");
    state.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Path temp = Files.createTempFile(path.getParent(), path.getFileName() + ".", ".tmp");
    try {
      Files.writeString(temp, text, StandardCharsets.UTF_8);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      try {
        Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static void writeJob(Map<String, String> state, CatchUpJob job) {
    state.keySet().removeIf(k -> k.startsWith("job."));
    if (job == null) {
      return;
    }
    state.put("job.key", job.key());
    if (job.jobId() != null) {
      state.put("job.id", job.jobId());
    }
    state.put("job.from", job.from().toString());
    state.put("job.until", job.until().toString());
    state.put("job.attempt", Integer.toString(job.attempt()));
    state.put("job.askedAt", job.askedAt().toString());
    if (job.retryAt() != null) {
      state.put("job.retryAt", job.retryAt().toString());
    }
  }

  private Snapshot parse(Map<String, String> state) throws IOException {
    try {
      Instant heartbeat = instant(state.get("heartbeat"));
      String key = state.get("job.key");
      if (key == null) {
        return new Snapshot(heartbeat, null);
      }
      CatchUpJob job =
          new CatchUpJob(
              key,
              state.get("job.id"),
              instant(state.get("job.from")),
              instant(state.get("job.until")),
              Integer.parseInt(state.getOrDefault("job.attempt", "1")),
              instant(state.get("job.askedAt")),
              instant(state.get("job.retryAt")));
      return new Snapshot(heartbeat, job);
    } catch (DateTimeParseException | NumberFormatException | NullPointerException e) {
      throw new IOException("the heartbeat file is not readable: " + path, e);
    }
  }

  private static Instant instant(String text) {
    return text == null ? null : Instant.parse(text);
  }
}
