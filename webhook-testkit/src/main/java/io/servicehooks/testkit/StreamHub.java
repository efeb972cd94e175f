package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The platform's side of the activity stream: the open connections, the recent events kept for
 * {@code backfill_minutes}, the queued connect faults and the connection limit.
 */
final class StreamHub {

  /** The platform's longest backfill, and how long the hub keeps events for it. */
  static final int MAX_BACKFILL_MINUTES = 5;

  private static final Duration HISTORY_REACH = Duration.ofMinutes(MAX_BACKFILL_MINUTES);

  /** How long {@link #forgetGone} waits for the writers' answers in all. */
  private static final Duration PROBE_BOUND = Duration.ofMillis(500);

  /** An event line as produced, kept for backfill. */
  private record Produced(Instant time, byte[] line) {}

  /** The outcome of a connect: a connection to serve with its backfill, or a refusal. */
  record Opened(StreamSession connection, List<byte[]> backfill) {}

  private final SimClock clock;
  private final int connectionLimit;
  private final int buffer;
  private final boolean keepAliveOnSimulatorClock;
  private volatile Duration keepAlive;
  private final AtomicLong ids;

  private final Object lock = new Object();
  // Guarded by lock.
  private final Map<String, StreamSession> open = new LinkedHashMap<>();
  private final Deque<Produced> history = new ArrayDeque<>();
  private final Deque<StreamFault> faults = new ArrayDeque<>();

  StreamHub(
      SimClock clock,
      Duration keepAlive,
      boolean keepAliveOnSimulatorClock,
      int connectionLimit,
      int buffer,
      long firstId) {
    this.clock = clock;
    this.keepAlive = keepAlive;
    this.keepAliveOnSimulatorClock = keepAliveOnSimulatorClock;
    this.connectionLimit = connectionLimit;
    this.buffer = buffer;
    this.ids = new AtomicLong(firstId);
  }

  // ---------------------------------------------------------------- settings

  void keepAlive(Duration interval) {
    this.keepAlive = interval;
  }

  Duration keepAlive() {
    return keepAlive;
  }

  /** The real-time keep-alive interval a connection's writer waits, or null on the sim clock. */
  Duration realTimeKeepAlive() {
    return keepAliveOnSimulatorClock ? null : keepAlive;
  }

  // ---------------------------------------------------------------- faults

  void enqueue(List<StreamFault> more) {
    synchronized (lock) {
      faults.addAll(more);
    }
  }

  StreamFault pollFault() {
    synchronized (lock) {
      return faults.poll();
    }
  }

  // ---------------------------------------------------------------- events

  /**
   * Sends an event to every open stream and keeps it for backfill. Only activity envelopes {@code
   * {"data":{...}}} travel on the stream; anything else (legacy batches, replay status) is ignored.
   *
   * @return the number of open streams it was queued on, or -1 when it is not an envelope
   */
  int publish(byte[] body, int copies) {
    byte[] line = streamLine(body);
    if (line == null) {
      return -1;
    }
    synchronized (lock) {
      Instant now = clock.now();
      history.add(new Produced(now, line));
      prune(now);
      for (StreamSession connection : open.values()) {
        for (int i = 0; i < copies; i++) {
          connection.offerEvent(line);
        }
      }
      return open.size();
    }
  }

  /** The envelope as one line, or null when the body is not an activity envelope. */
  static byte[] streamLine(byte[] body) {
    JsonNode node = Json.parseOrNull(body);
    if (node == null || !node.isObject() || !node.path("data").isObject()) {
      return null;
    }
    for (byte b : body) {
      if (b == '\n' || b == '\r') {
        // One object per line: a pretty-printed body is written compactly.
        return Json.bytes(node);
      }
    }
    return body.clone();
  }

  // ---------------------------------------------------------------- connections

  /**
   * Opens a connection and takes its backfill in one step, so every event is either in the backfill
   * or queued on the connection, never neither.
   *
   * @param from the oldest production time to backfill (inclusive), or null for no backfill
   * @param to the newest production time to backfill (inclusive), or null for up to now
   * @return the connection and its backfill, or null when the connection limit is reached
   */
  Opened open(int backfillMinutes, Instant from, Instant to) {
    Opened opened = tryOpen(backfillMinutes, from, to);
    if (opened == null) {
      // A process that died holding a connection must not keep its successor out.
      forgetGone();
      opened = tryOpen(backfillMinutes, from, to);
    }
    return opened;
  }

  private Opened tryOpen(int backfillMinutes, Instant from, Instant to) {
    synchronized (lock) {
      long live = open.values().stream().filter(c -> !c.stalled()).count();
      if (live >= connectionLimit) {
        return null;
      }
      Instant now = clock.now();
      prune(now);
      StreamSession connection =
          new StreamSession(Long.toString(ids.incrementAndGet()), now, backfillMinutes, buffer);
      open.put(connection.endpointId, connection);
      List<byte[]> backfill = new ArrayList<>();
      if (from != null) {
        for (Produced event : history) {
          if (!event.time().isBefore(from) && (to == null || !event.time().isAfter(to))) {
            backfill.add(event.line());
          }
        }
      }
      return new Opened(connection, backfill);
    }
  }

  void closed(StreamSession connection) {
    synchronized (lock) {
      open.remove(connection.endpointId, connection);
    }
  }

  /**
   * Forgets the connections whose client has gone (its process ended, or it closed the socket
   * without the server noticing, as nothing is written between keep-alives): each live connection
   * is probed, and waited for up to half a second in all. A connection whose writer does not answer
   * in time counts as open.
   */
  void forgetGone() {
    Map<StreamSession, CompletableFuture<Boolean>> probes = new LinkedHashMap<>();
    synchronized (lock) {
      open.values().forEach(c -> probes.put(c, c.probe()));
    }
    long deadline = System.nanoTime() + PROBE_BOUND.toNanos();
    for (Map.Entry<StreamSession, CompletableFuture<Boolean>> probe : probes.entrySet()) {
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        if (!probe.getValue().get(left, TimeUnit.NANOSECONDS)) {
          closed(probe.getKey());
        }
      } catch (TimeoutException | ExecutionException e) {
        // Not shown to have gone: it stays.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  List<OpenStream> openStreams() {
    synchronized (lock) {
      return open.values().stream().map(StreamSession::describe).toList();
    }
  }

  /** Ends one connection cleanly, as {@code DELETE /2/connections/{id}} does; false if unknown. */
  boolean kill(String endpointId) {
    synchronized (lock) {
      StreamSession connection = open.remove(endpointId);
      if (connection == null) {
        return false;
      }
      connection.control(StreamSession.Kind.CLOSE, null);
      return true;
    }
  }

  /** Ends every connection cleanly; returns how many. */
  int killAll() {
    return endAll(StreamSession.Kind.CLOSE, null);
  }

  /** Drops every connection abruptly (no end of the chunked body); returns how many. */
  int dropAll() {
    return endAll(StreamSession.Kind.DROP, null);
  }

  /** Sends the operational-disconnect error object on every stream, then ends it. */
  int disconnectAll() {
    return endAll(StreamSession.Kind.DISCONNECT, operationalDisconnect());
  }

  /** Silences every open connection: no events, no keep-alives, until dropped or killed. */
  int stallAll() {
    synchronized (lock) {
      open.values().forEach(StreamSession::stall);
      return open.size();
    }
  }

  private int endAll(StreamSession.Kind kind, byte[] line) {
    synchronized (lock) {
      List<StreamSession> all = new ArrayList<>(open.values());
      open.clear();
      all.forEach(c -> c.control(kind, line));
      return all.size();
    }
  }

  /** After the simulator's clock moved: queues the keep-alives that came due on it. */
  void advanced() {
    if (!keepAliveOnSimulatorClock) {
      return;
    }
    Instant now = clock.now();
    Duration interval = keepAlive;
    synchronized (lock) {
      open.values().forEach(c -> c.keepAlivesUntil(now, interval));
      prune(now);
    }
  }

  // Caller holds lock.
  private void prune(Instant now) {
    Instant oldest = now.minus(HISTORY_REACH).minusSeconds(60);
    while (!history.isEmpty() && history.peekFirst().time().isBefore(oldest)) {
      history.pollFirst();
    }
  }

  static byte[] operationalDisconnect() {
    ObjectNode body = Json.object();
    ObjectNode error = body.putArray("errors").addObject();
    error.put("title", "operational-disconnect");
    error.put("disconnect_type", "UpstreamOperationalDisconnect");
    error.put("detail", "This stream has been disconnected upstream for operational reasons.");
    error.put("type", SimResponse.PROBLEM_BASE + "operational-disconnect");
    return Json.bytes(body);
  }

  static SimResponse tooManyConnections(int limit) {
    ObjectNode body = Json.object();
    body.put("title", "ConnectionException");
    body.put(
        "detail",
        "This stream is currently at the maximum allowed connection limit (" + limit + ").");
    body.put("connection_issue", "TooManyConnections");
    body.put("type", SimResponse.PROBLEM_BASE + "streaming-connection");
    return SimResponse.json(429, body, "application/problem+json");
  }

  int connectionLimit() {
    return connectionLimit;
  }

  @Override
  public String toString() {
    return "StreamHub[open=" + openStreams().size() + "]";
  }
}
