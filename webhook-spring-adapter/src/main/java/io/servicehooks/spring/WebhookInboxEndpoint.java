package io.servicehooks.spring;

import io.servicehooks.postgres.InboxAdmin;
import io.servicehooks.postgres.InboxEntry;
import io.servicehooks.postgres.InboxStats;
import io.servicehooks.postgres.InboxStatus;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The Actuator endpoint {@code webhookinbox} of durable mode: reading it gives the inbox's counts,
 * lag and oldest dead letters; writing it retries one dead letter ({@code {"id": 42}}) or all of
 * them ({@code {"allDead": true}}); deleting {@code /actuator/webhookinbox/42} discards one. Like
 * every endpoint it is exposed over HTTP only when the application says so ({@code
 * management.endpoints.web.exposure.include}); its POST and DELETE change the inbox, so secure them
 * as the application's other write endpoints (authenticated, with CSRF for browsers).
 */
@Endpoint(id = "webhookinbox")
public final class WebhookInboxEndpoint {

  /** Dead letters listed when no {@code limit} is given. */
  public static final int DEFAULT_LIMIT = 20;

  private final InboxAdmin admin;

  WebhookInboxEndpoint(InboxAdmin admin) {
    this.admin = admin;
  }

  /**
   * Counts by status, lag in seconds, and up to {@code limit} dead letters, oldest first.
   *
   * @param limit how many dead letters (default {@value #DEFAULT_LIMIT})
   * @return the inbox's state
   */
  @ReadOperation
  public Map<String, Object> inbox(@Nullable Integer limit) throws SQLException {
    int n = limit == null ? DEFAULT_LIMIT : limit;
    if (n < 1) {
      throw new InvalidEndpointRequestException(
          "limit must be at least 1, was " + n, "limit must be at least 1");
    }
    InboxStats stats = admin.stats();
    Map<String, Object> out = counts(stats);
    out.put(
        "deadLetters",
        admin.list(InboxStatus.DEAD, n).stream().map(WebhookInboxEndpoint::entry).toList());
    return out;
  }

  /**
   * Makes one dead (or pending) row, or every dead letter, due now with a fresh set of attempts.
   * Answers 404 naming the id when no dead or pending row has it, and 400 naming the fields when
   * the body gives neither or both.
   *
   * @param id the row to retry
   * @param allDead {@code true} to retry every dead letter instead
   * @return how many rows were retried
   */
  @WriteOperation
  public WebEndpointResponse<Map<String, Object>> retry(
      @Nullable Long id, @Nullable Boolean allDead) throws SQLException {
    boolean all = Boolean.TRUE.equals(allDead);
    if ((id == null) == !all) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put(
          "error",
          "give either \"id\" (a dead or pending row, from GET) or \"allDead\": true, not both");
      out.put("fields", java.util.List.of("id", "allDead"));
      return new WebEndpointResponse<>(out, WebEndpointResponse.STATUS_BAD_REQUEST);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    if (all) {
      out.put("retried", admin.retryAllDead());
      return new WebEndpointResponse<>(out);
    }
    out.put("id", id);
    if (!admin.retry(id)) {
      out.put("error", "no dead or pending inbox row has id " + id);
      return new WebEndpointResponse<>(out, WebEndpointResponse.STATUS_NOT_FOUND);
    }
    out.put("retried", 1);
    return new WebEndpointResponse<>(out);
  }

  /**
   * Gives up on one dead letter ({@code DELETE /actuator/webhookinbox/42}): the row becomes done,
   * so a copy of the event is still a duplicate, and retention purges it. Answers 404 naming the id
   * when no dead row has it.
   *
   * @param id the dead letter's row id
   * @return the id and {@code discarded: 1}
   */
  @DeleteOperation
  public WebEndpointResponse<Map<String, Object>> discard(@Selector long id) throws SQLException {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", id);
    if (!admin.discard(id)) {
      out.put("error", "no dead inbox row has id " + id);
      return new WebEndpointResponse<>(out, WebEndpointResponse.STATUS_NOT_FOUND);
    }
    out.put("discarded", 1);
    return new WebEndpointResponse<>(out);
  }

  static Map<String, Object> counts(InboxStats stats) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("pending", stats.pending());
    out.put("running", stats.running());
    out.put("done", stats.done());
    out.put("dead", stats.dead());
    out.put("lagSeconds", stats.lag().toMillis() / 1000.0);
    return out;
  }

  private static Map<String, Object> entry(InboxEntry e) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", e.id());
    out.put("eventId", e.eventId());
    out.put("type", e.type());
    out.put("attempts", e.attempts());
    out.put("receivedAt", e.receivedAt().toString());
    out.put("dueAt", e.dueAt().toString());
    out.put("lastError", e.lastError().orElse(null));
    return out;
  }
}
