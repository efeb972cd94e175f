package io.servicehooks.kafka;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code webhook-kafka/api/webhook-kafka.api} (see {@link
 * ApiDump}).
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("webhook-kafka");
  }
}
