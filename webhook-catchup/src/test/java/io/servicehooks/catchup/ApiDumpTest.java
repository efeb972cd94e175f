package io.servicehooks.catchup;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code webhook-catchup/api/webhook-catchup.api} (see {@link
 * ApiDump}).
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("webhook-catchup");
  }
}
