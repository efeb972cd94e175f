package io.servicehooks.spring;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code
 * webhook-spring-adapter/api/webhook-spring-adapter.api} (see {@link ApiDump}).
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("webhook-spring-adapter");
  }
}
