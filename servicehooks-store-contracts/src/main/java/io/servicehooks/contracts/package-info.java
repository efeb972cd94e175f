/**
 * The contract test suites of the store SPIs: {@link
 * io.servicehooks.contracts.DeduplicatorContract} for a {@link io.servicehooks.core.Deduplicator}
 * and {@link io.servicehooks.contracts.EventInboxContract} for an {@link
 * io.servicehooks.core.EventInbox}. A store's test class extends one, says how to make the store,
 * and runs every case of the contract. Add this artifact in test scope.
 */
package io.servicehooks.contracts;
