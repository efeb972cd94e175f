package io.servicehooks.contracts;

import io.servicehooks.testsupport.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * The public API stays as committed in {@code
 * servicehooks-store-contracts/api/servicehooks-store-contracts.api} (see {@link ApiDump}): the
 * cases are API too, since a store's subclass may override one by name.
 */
final class ApiDumpTest {

  @Test
  void publicApi_matchesCommittedDump() {
    ApiDump.check("servicehooks-store-contracts");
  }
}
