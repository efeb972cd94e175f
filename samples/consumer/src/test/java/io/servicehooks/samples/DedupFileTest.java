package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code DEDUP_FILE}, and the line a stream consumer with dedup in memory says at start. */
final class DedupFileTest {

  @Test
  void dedupFile_unset_null_set_itsPath() throws Exception {
    assertThat(ConsumerSettingsReader.dedupFile(Map.of())).isNull();
    assertThat(ConsumerSettingsReader.dedupFile(Map.of("DEDUP_FILE", " /var/lib/bot/dedup.db ")))
        .isEqualTo(Path.of("/var/lib/bot/dedup.db"));
  }

  @Test
  void dedupFile_withRedisUrlOrDatabaseUrl_refusedInOneLineNamingBoth() {
    for (String other : new String[] {"REDIS_URL", "DATABASE_URL"}) {
      assertThatThrownBy(
              () ->
                  ConsumerSettingsReader.dedupFile(
                      Map.of("DEDUP_FILE", "dedup.db", other, "redis://127.0.0.1:6379")))
          .isInstanceOf(ConsumerMain.ConfigException.class)
          .hasMessageStartingWith("DEDUP_FILE and " + other + " both choose the dedup store")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void inMemoryRestartLine_namesTheBackfillAndTheStoresThatSurvive() throws Exception {
    StreamWiring.Config config =
        StreamWiring.parse(
            Map.of(
                "DELIVERY", "stream",
                "SERVICE_API_BASE_URL", "https://api.example.com",
                "SERVICE_BEARER_TOKEN", "t",
                "STREAM_BACKFILL_MINUTES", "3"));

    assertThat(StreamWiring.inMemoryRestartLine(config))
        .isEqualTo(
            "Dedup is in memory: a restart re-runs the last 3 minutes of events (backfill); set"
                + " DEDUP_FILE=<path> (one process) or REDIS_URL for a store that survives"
                + " restarts");
  }
}
