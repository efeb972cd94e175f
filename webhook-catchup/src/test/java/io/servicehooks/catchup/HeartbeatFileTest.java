package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.servicehooks.undertow.WebhookServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A corrupt heartbeat file is repaired with one ERROR line and catch-up works again, rather than a
 * WARN every heartbeat and no replay ever; a missing file is told apart from a first start.
 */
final class HeartbeatFileTest {

  private final Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks.catchup");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private Path dir;
  private Path file;

  @BeforeEach
  void setUp() throws Exception {
    dir = Files.createTempDirectory("heartbeat-file-");
    file = dir.resolve("heartbeat");
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void tearDown() throws Exception {
    logger.detachAppender(lines);
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private List<ILoggingEvent> at(Level level) {
    return lines.list.stream().filter(e -> e.getLevel() == level).toList();
  }

  private static byte[] corruption(String kind) {
    return switch (kind) {
      case "binary" -> new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, (byte) 0xc3, 'x', '\n'};
      case "empty" -> new byte[0];
      case "badValue" ->
          "# servicehooks catch-up state, format 1\nheartbeat=last tuesday\n"
              .getBytes(StandardCharsets.UTF_8);
      case "noHeader" -> "heartbeat=2026-03-18T10:00:00Z\n".getBytes(StandardCharsets.UTF_8);
      case "notKeyValue" ->
          "# servicehooks catch-up state, format 1\n\u0000\u0000\u0000\u0000\n"
              .getBytes(StandardCharsets.UTF_8);
      default -> throw new IllegalArgumentException(kind);
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "empty", "badValue", "noHeader", "notKeyValue"})
  void corruptFile_repairedWithOneError_gapSinceItsLastWriteReplayed(String kind) throws Exception {
    try (Platform p = new Platform()) {
      byte[] damaged = corruption(kind);
      Files.write(file, damaged);
      // written when the consumer last ran; it then stayed down for half an hour
      Instant lastWrite = p.simulator.now();
      Files.setLastModifiedTime(file, FileTime.from(lastWrite));
      p.advance(Duration.ofMinutes(30));
      Instant restart = p.simulator.now();

      try (CatchUp catchUp = p.catchUp(HeartbeatStore.file(file)).build();
          WebhookServer server = p.serve(p.consumer(catchUp))) {
        catchUp.start();
        p.settle();

        assertThat(p.simulator.replayRequests())
            .singleElement()
            .satisfies(
                r -> {
                  assertThat(r.from()).isEqualTo(lastWrite.minus(Duration.ofMinutes(2)));
                  assertThat(r.to()).isEqualTo(restart.truncatedTo(ChronoUnit.MINUTES));
                });
        await()
            .atMost(Duration.ofSeconds(8))
            .untilAsserted(() -> assertThat(HeartbeatStore.file(file).read().job()).isNull());
        assertThat(Files.readAllBytes(dir.resolve("heartbeat.corrupt"))).isEqualTo(damaged);

        p.advance(Duration.ofMinutes(1));
        catchUp.check();
        p.advance(Duration.ofMinutes(1));
        catchUp.check();
        assertThat(HeartbeatStore.file(file).read().heartbeat())
            .isEqualTo(restart.plus(Duration.ofMinutes(2)));
      }
      assertThat(at(Level.ERROR))
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.getFormattedMessage())
                      .contains("was corrupt")
                      .contains(file.toString())
                      .contains("heartbeat=" + lastWrite));
      assertThat(at(Level.WARN)).isEmpty();
    }
  }

  @Test
  void corruptFile_readableHeartbeatEarlierThanLastWrite_replaysFromTheHeartbeat()
      throws Exception {
    Instant heartbeat = Instant.parse("2026-03-18T10:00:00Z");
    Files.writeString(
        file,
        "# servicehooks catch-up state, format 1\nheartbeat="
            + heartbeat
            + "\njob.key=k1\njob.from=garbage\n");
    Files.setLastModifiedTime(file, FileTime.from(heartbeat.plusSeconds(600)));

    HeartbeatStore store = HeartbeatStore.file(file);

    assertThat(store.read()).isEqualTo(new HeartbeatStore.Snapshot(heartbeat, null));
    assertThat(store.read()).isEqualTo(new HeartbeatStore.Snapshot(heartbeat, null));
    assertThat(at(Level.ERROR)).hasSize(1);
  }

  @Test
  void missingFile_noEarlierRun_loggedOnceAsFirstStart() throws Exception {
    HeartbeatStore store = HeartbeatStore.file(file);

    assertThat(store.read()).isEqualTo(new HeartbeatStore.Snapshot(null, null));
    assertThat(store.read().heartbeat()).isNull();

    assertThat(at(Level.INFO))
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage()).contains("first start"));
    assertThat(at(Level.WARN)).isEmpty();
  }

  @Test
  void missingFile_afterAnEarlierRun_loggedOnceAsLost() throws Exception {
    HeartbeatStore first = HeartbeatStore.file(file);
    first.beat(Instant.parse("2026-03-18T10:00:00Z"));
    Files.delete(file); // a redeploy onto a fresh disk that kept the directory, or a clean-up
    lines.list.clear();

    HeartbeatStore store = HeartbeatStore.file(file);
    assertThat(store.read().heartbeat()).isNull();
    assertThat(store.read().heartbeat()).isNull();

    assertThat(at(Level.WARN))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getFormattedMessage())
                    .contains("is missing")
                    .contains("survives restarts and redeploys"));
    assertThat(at(Level.INFO)).isEmpty();
  }
}
