/**
 * Dedup that survives restarts without a server, for a one-process bot: {@link
 * io.servicehooks.sqlite.SqliteDeduplicator} implements the core's {@link
 * io.servicehooks.core.Deduplicator} in one SQLite file, one transaction per operation.
 */
package io.servicehooks.sqlite;
