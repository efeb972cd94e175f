package io.servicehooks.stream;

/**
 * The stream's meters; without a registry nothing is recorded and Micrometer need not be present.
 */
interface StreamMetrics {

  StreamMetrics NONE =
      new StreamMetrics() {
        @Override
        public void connected(boolean connected) {}

        @Override
        public void reconnect(String cause) {}

        @Override
        public void event() {}

        @Override
        public void backfill(int minutes) {}

        @Override
        public void unrecovered(long minutes) {}
      };

  /** {@code webhook.stream.connected}: 1 while a connection is open. */
  void connected(boolean connected);

  /** {@code webhook.stream.reconnects{cause}}. */
  void reconnect(String cause);

  /** {@code webhook.stream.events}: an event line handed to the consumer. */
  void event();

  /** {@code webhook.stream.backfill.minutes}: the minutes a connect asked again. */
  void backfill(int minutes);

  /** {@code webhook.stream.minutes.unrecovered}: minutes of a gap beyond the backfill reach. */
  void unrecovered(long minutes);
}
