package io.servicehooks.undertow;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code webhook-undertow/api/webhook-undertow.api} (see
 * {@link ApiDump}).
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("webhook-undertow");
  }
}
