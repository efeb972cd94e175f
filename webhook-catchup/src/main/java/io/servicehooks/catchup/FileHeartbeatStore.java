package io.servicehooks.catchup;

import io.servicehooks.catchup.HeartbeatFile.Loaded;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * atomically ({@link HeartbeatFile}), all under the lock {@code <path>.lock}; leadership is the
 * lock {@code <path>.leader} ({@link HeartbeatFileLocks}).
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

  private final Path path;
  private final Path corruptCopy;
  private final HeartbeatFile file;
  private final HeartbeatFileLocks locks;
  private final AtomicBoolean missingLogged = new AtomicBoolean();

  FileHeartbeatStore(Path path) {
    this.path = path.toAbsolutePath().normalize();
    this.corruptCopy = this.path.resolveSibling(this.path.getFileName() + ".corrupt");
    this.file = new HeartbeatFile(this.path);
    this.locks = new HeartbeatFileLocks(this.path);
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
    return file.parse(loaded.state());
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
    return locks.tryLead();
  }

  @Override
  public void putJob(CatchUpJob job) throws IOException {
    change(
        state -> {
          HeartbeatFile.writeJob(state, job);
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
          HeartbeatFile.writeJob(state, next);
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
    try (HeartbeatFileLocks.Held held = locks.lockForChange()) {
      Loaded loaded = load();
      Map<String, String> state = loaded.corruption() == null ? loaded.state() : repair(loaded);
      if (!change.apply(state)) {
        return false;
      }
      file.store(state);
      return true;
    }
  }

  private Loaded load() throws IOException {
    return file.load(this::noteMissing);
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
    file.store(state);
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
    if (Files.exists(locks.changeLockFile())) {
      log.warn(
          "Catch-up heartbeat file {} is missing, yet {} shows catch-up ran here before: the file"
              + " was deleted or lost, so downtime before now cannot be found or replayed; keep it"
              + " on a volume that survives restarts and redeploys",
          path,
          locks.changeLockFile().getFileName());
    } else {
      log.info(
          "Catch-up heartbeat file {} does not exist yet: first start here (if this consumer ran"
              + " before with another file, downtime before now is not replayed)",
          path);
    }
  }

  private static Instant instant(String text) {
    return HeartbeatFile.instant(text);
  }
}
