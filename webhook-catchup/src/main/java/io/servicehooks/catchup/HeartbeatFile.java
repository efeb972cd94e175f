package io.servicehooks.catchup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The heartbeat file's format: a header line, then {@code key=value} lines, read back strictly (a
 * file that does not read back says why) and replaced atomically through a temporary file beside
 * it.
 */
final class HeartbeatFile {

  private static final String HEADER = "# servicehooks catch-up state, format 1";
  private static final String HEADER_START = "# servicehooks catch-up state";

  private final Path path;

  HeartbeatFile(Path path) {
    this.path = path;
  }

  /**
   * What the file holds: its state, or why it cannot be read back ({@code corruption}, with the
   * file's {@code bytes}).
   */
  record Loaded(Map<String, String> state, String corruption, byte[] bytes) {}

  /** Reads the file; a missing one is an empty state, after {@code onMissing} ran. */
  Loaded load(Runnable onMissing) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      onMissing.run();
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

  /** Replaces the file with {@code state}: a temporary file, forced to disk, moved over it. */
  void store(Map<String, String> state) throws IOException {
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

  /** Puts {@code job}'s lines into {@code state} in place of the old job's; none for null. */
  static void writeJob(Map<String, String> state, CatchUpJob job) {
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

  /** The state as a snapshot; an {@link IOException} when a value does not parse. */
  HeartbeatStore.Snapshot parse(Map<String, String> state) throws IOException {
    try {
      Instant heartbeat = instant(state.get("heartbeat"));
      String key = state.get("job.key");
      if (key == null) {
        return new HeartbeatStore.Snapshot(heartbeat, null);
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
      return new HeartbeatStore.Snapshot(heartbeat, job);
    } catch (DateTimeParseException | NumberFormatException | NullPointerException e) {
      throw new IOException("the heartbeat file is not readable: " + path, e);
    }
  }

  static Instant instant(String text) {
    return text == null ? null : Instant.parse(text);
  }
}
