package io.servicehooks.catchup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The two locks of a heartbeat file: {@code <path>.lock} around each change, waited for boundedly,
 * and {@code <path>.leader} for leadership, only tried. Within one JVM, where file locks do not
 * exclude each other, a lock per path stands in.
 */
final class HeartbeatFileLocks {

  private static final Duration LOCK_WAIT = Duration.ofSeconds(5);
  private static final Map<Path, ReentrantLock> CHANGES = new ConcurrentHashMap<>();
  private static final Set<Path> LEADERS = ConcurrentHashMap.newKeySet();

  private final Path path;
  private final Path changeLock;
  private final Path leaderLock;

  HeartbeatFileLocks(Path path) {
    this.path = path;
    this.changeLock = path.resolveSibling(path.getFileName() + ".lock");
    this.leaderLock = path.resolveSibling(path.getFileName() + ".leader");
  }

  /** The change lock's file; its presence shows that catch-up ran here before. */
  Path changeLockFile() {
    return changeLock;
  }

  /** Held while a change reads and replaces the file; closing it releases both locks. */
  interface Held extends AutoCloseable {
    @Override
    void close() throws IOException;
  }

  /** Takes the change lock, waiting up to 5 s for it. */
  Held lockForChange() throws IOException {
    ReentrantLock local = CHANGES.computeIfAbsent(changeLock, p -> new ReentrantLock());
    try {
      if (!local.tryLock(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException("the heartbeat file stayed locked for " + LOCK_WAIT + ": " + path);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for the heartbeat file lock", e);
    }
    FileChannel channel = null;
    FileLock lock;
    try {
      channel = FileChannel.open(changeLock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      lock = fileLock(channel);
    } catch (IOException | RuntimeException | Error e) {
      try {
        if (channel != null) {
          channel.close();
        }
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      } finally {
        local.unlock();
      }
      throw e;
    }
    FileChannel open = channel;
    return () -> {
      try (open;
          lock) {
        // released in reverse order: the file lock, then its channel
      } finally {
        local.unlock();
      }
    };
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

  /** The leader lock if no one holds it, in this JVM or another process. */
  Optional<HeartbeatStore.Leadership> tryLead() throws IOException {
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
}
