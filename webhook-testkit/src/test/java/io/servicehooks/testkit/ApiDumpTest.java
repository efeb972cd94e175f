package io.servicehooks.testkit;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code webhook-testkit/api/webhook-testkit.api} (see {@link
 * ApiDump}).
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("webhook-testkit");
  }
}
