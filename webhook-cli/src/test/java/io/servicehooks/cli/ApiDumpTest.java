package io.servicehooks.cli;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code webhook-cli/api/webhook-cli.api} (see {@link
 * ApiDump}).
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("webhook-cli");
  }
}
