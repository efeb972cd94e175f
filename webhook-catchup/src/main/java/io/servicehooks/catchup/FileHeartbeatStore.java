package io.servicehooks.catchup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>A file that is there but cannot be read back (not UTF-8, no header line, a line that is not
 * {@code key=value}, a value that does not parse) is repaired on the next read or change, with one
 * ERROR line: it is kept beside as {@code <path>.corrupt} and replaced by a heartbeat at the
 * earliest time it still shows (its heartbeat or job start when readable, else its last-modified
 * time), so the next check replays from there instead of failing every time. A missing file is
 * logged once: as a first start when no lock file beside it shows an earlier run, else as a lost
 * file.
 */
final class FileHeartbeatStore implements HeartbeatStore {

  private static final Logger log = LoggerFactory.getLogger(FileHeartbeatStore.class);
  private static final String HEADER = "# servicehooks catch-up state, format 1";
  private static final String HEADER_START = "# servicehooks catch-up state";
  private static final Duration LOCK_WAIT = Duration.ofSeconds(5);
  private static final Map<Path, ReentrantLock> CHANGES = new ConcurrentHashMap<>();
  private static final Set<Path> LEADERS = ConcurrentHashMap.newKeySet();

  private final Path path;
  private final Path changeLock;
  private final Path leaderLock;
  private final Path corruptCopy;
  private final AtomicBoolean missingLogged = new AtomicBoolean();

  FileHeartbeatStore(Path path) {
    this.path = path.toAbsolutePath().normalize();
    this.changeLock = this.path.resolveSibling(this.path.getFileName() + ".lock");
    this.leaderLock = this.path.resolveSibling(this.path.getFileName() + ".leader");
    this.corruptCopy = this.path.resolveSibling(this.path.getFileName() + ".corrupt");
  }

  @Override
  public Snapshot read() throws IOException {
    Loaded loaded = load();
    if (loaded.corruption() != null) {
      // Repaired under the change lock; the change reads the file again and repairs it once.
      change(state -> false);
      loaded = load();
      if (loaded.corruption() != null) {
        throw new IOException("the heartbeat file is not readable: " + path);
      }
    }
    return parse(loaded.state());
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
      Loaded loaded = load();
      Map<String, String> state = loaded.corruption() == null ? loaded.state() : repair(loaded);
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

  /** What the file holds: its state, or why it cannot be read back. */
  private record Loaded(Map<String, String> state, String corruption, byte[] bytes) {}

  private Loaded load() throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      noteMissing();
      return new Loaded(new LinkedHashMap<>(), null, null);
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      return new Loaded(new LinkedHashMap<>(), "not UTF-8 text", bytes);
    }
    if (!text.startsWith(HEADER_START)) {
      return new Loaded(
          new LinkedHashMap<>(),
          text.isBlank() ? "empty" : "no '" + HEADER_START + "' line first",
          bytes);
    }
    Map<String, String> state = new LinkedHashMap<>();
    String[] lines = text.split("\n");
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 1) {
        return new Loaded(state, "line " + (n + 1) + " is not key=value", bytes);
      }
      state.put(line.substring(0, eq), line.substring(eq + 1));
    }
    try {
      parse(state);
    } catch (IOException e) {
      Throwable cause = e.getCause();
      return new Loaded(
          state,
          "a value does not parse: "
              + (cause == null || cause.getMessage() == null ? cause : cause.getMessage()),
          bytes);
    }
    return new Loaded(state, null, bytes);
  }

  /**
   * Replaces a corrupt file (under the change lock): keeps it as {@code <path>.corrupt} and writes
   * a heartbeat at the earliest time it still shows, so the gap since then is replayed.
   */
  private Map<String, String> repair(Loaded corrupt) throws IOException {
    Instant recovered = Files.getLastModifiedTime(path).toInstant();
    String from = "its last-modified time";
    for (String key : new String[] {"heartbeat", "job.from"}) {
      try {
        Instant shown = instant(corrupt.state().get(key));
        if (shown != null && shown.isBefore(recovered)) {
          recovered = shown;
          from = "its " + key;
        }
      } catch (DateTimeParseException unreadable) {
        // that value is part of the damage
      }
    }
    Files.write(corruptCopy, corrupt.bytes());
    Map<String, String> state = new LinkedHashMap<>();
    state.put("heartbeat", recovered.toString());
    store(state);
    log.error(
        "Catch-up heartbeat file {} was corrupt ({}): kept as {} and replaced by heartbeat={} ({});"
            + " the next check replays from there",
        path,
        corrupt.corruption(),
        corruptCopy,
        recovered,
        from);
    return state;
  }

  /** Once per store: says whether a missing file is a first start or a lost file. */
  private void noteMissing() {
    if (!missingLogged.compareAndSet(false, true)) {
      return;
    }
    if (Files.exists(changeLock)) {
      log.warn(
          "Catch-up heartbeat file {} is missing, yet {} shows catch-up ran here before: the file"
              + " was deleted or lost, so downtime before now cannot be found or replayed; keep it"
              + " on a volume that survives restarts and redeploys",
          path,
          changeLock.getFileName());
    } else {
      log.info(
          "Catch-up heartbeat file {} does not exist yet: first start here (if this consumer ran"
              + " before with another file, downtime before now is not replayed)",
          path);
    }
  }

  private void store(Map<String, String> state) throws IOException {
    StringBuilder text = new StringBuilder(HEADER).append('\n');
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
