package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /2/webhooks}: register (with the CRC check, the URL rules and the app's webhook limit),
 * list, revalidate and delete, and the registered webhooks' state, which the periodic check and
 * deliveries read.
 */
final class WebhooksResource {

  // Logs under Api's name: one logger for all of the simulator's API resources, so a test's log
  // configuration silences or shows them together.
  private static final Logger log = LoggerFactory.getLogger(Api.class);

  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  private final boolean localMode;
  private final int webhookLimit;
  private final Duration recheckInterval;
  private final SimClock clock;
  private final CrcCheck crc;
  private final Supplier<String> ids;
  private final Supplier<ResponseStyle> style;

  private final Object lock = new Object();
  private final Map<String, RegisteredWebhook> webhooks = new LinkedHashMap<>(); // guarded by lock

  WebhooksResource(
      boolean localMode,
      int webhookLimit,
      Duration recheckInterval,
      SimClock clock,
      CrcCheck crc,
      Supplier<String> ids,
      Supplier<ResponseStyle> style) {
    this.localMode = localMode;
    this.webhookLimit = webhookLimit;
    this.recheckInterval = recheckInterval;
    this.clock = clock;
    this.crc = crc;
    this.ids = ids;
    this.style = style;
  }

  /** Routes {@code /2/webhooks} ({@code parts.length == 2}) and {@code /2/webhooks/{id}}. */
  SimResponse handle(ApiRequest request, String[] parts) {
    String method = request.method();
    if (parts.length == 2) {
      return switch (method) {
        case "POST" -> create(request);
        case "GET" -> list();
        default -> Api.methodNotAllowed();
      };
    }
    return switch (method) {
      case "PUT" -> revalidate(parts[2]);
      case "DELETE" -> delete(parts[2]);
      default -> Api.methodNotAllowed();
    };
  }

  List<RegisteredWebhook> all() {
    synchronized (lock) {
      return List.copyOf(webhooks.values());
    }
  }

  /** The webhook with this id, or null when the id is missing, malformed or unknown. */
  RegisteredWebhook find(String id) {
    if (id == null || !DIGITS.matcher(id).matches()) {
      return null;
    }
    synchronized (lock) {
      return webhooks.get(id);
    }
  }

  /** Runs the periodic check on the given webhooks; a failure makes a webhook invalid at once. */
  void recheck(List<RegisteredWebhook> due) {
    for (RegisteredWebhook webhook : due) {
      CrcCheck.Outcome outcome = crc.check(webhook.url);
      Instant now = clock.now();
      webhook.checked(outcome.passed(), now, outcome.detail(), now.plus(recheckInterval));
      if (!outcome.passed()) {
        log.info(
            "periodic check of webhook {} failed, webhook is now invalid: {}",
            webhook.id,
            outcome.detail());
      }
    }
  }

  private SimResponse create(ApiRequest request) {
    JsonNode body = Json.parseOrNull(request.body());
    if (body == null || !body.isObject()) {
      return Api.badRequest("The request body must be a JSON object");
    }
    String url = Json.text(body, "url");
    String violation = UrlRules.violation(url, localMode);
    if (violation != null) {
      return SimResponse.invalidRequest("UrlValidationFailed", violation);
    }
    SimResponse refused = refuseRegistration(url);
    if (refused != null) {
      return refused;
    }
    // The check runs outside the lock: it may take up to the CRC time-out.
    CrcCheck.Outcome outcome = crc.check(url);
    if (!outcome.passed()) {
      return SimResponse.invalidRequest("CrcValidationFailed", outcome.detail());
    }
    RegisteredWebhook webhook;
    synchronized (lock) {
      refused = refuseRegistration(url);
      if (refused != null) {
        return refused;
      }
      Instant now = clock.now();
      webhook = new RegisteredWebhook(ids.get(), url, now, now.plus(recheckInterval));
      webhooks.put(webhook.id, webhook);
    }
    log.info("webhook {} registered for {}", webhook.id, url);
    ObjectNode json = webhook.toJson();
    return SimResponse.ok(style.get() == ResponseStyle.CURRENT ? Json.data(json) : json);
  }

  private SimResponse refuseRegistration(String url) {
    synchronized (lock) {
      for (RegisteredWebhook existing : webhooks.values()) {
        if (existing.url.equals(url)) {
          return SimResponse.invalidRequest(
              "DuplicateUrlFailed",
              "URL is already registered for this application as webhook " + existing.id);
        }
      }
      if (webhooks.size() >= webhookLimit) {
        return SimResponse.invalidRequest(
            "WebhookLimitExceeded",
            "This application may register at most " + webhookLimit + " webhook(s)");
      }
      return null;
    }
  }

  private SimResponse list() {
    List<RegisteredWebhook> all = all();
    ObjectNode body = Json.object();
    if (!all.isEmpty() || style.get() == ResponseStyle.CURRENT) {
      ArrayNode data = body.putArray("data");
      all.forEach(w -> data.add(w.toJson()));
    }
    body.putObject("meta").put("result_count", all.size());
    return SimResponse.ok(body);
  }

  private SimResponse revalidate(String id) {
    RegisteredWebhook webhook = find(id);
    if (webhook == null) {
      return Api.webhookIdInvalid(id);
    }
    CrcCheck.Outcome outcome = crc.check(webhook.url);
    Instant now = clock.now();
    webhook.checked(outcome.passed(), now, outcome.detail(), now.plus(recheckInterval));
    log.info("webhook {} revalidated: {}", id, outcome.passed() ? "valid" : outcome.detail());
    ObjectNode body = Json.object();
    if (style.get() == ResponseStyle.CURRENT) {
      body.putObject("data").put("valid", outcome.passed());
      return SimResponse.ok(body);
    }
    if (!outcome.passed()) {
      return SimResponse.invalidRequest("CrcValidationFailed", outcome.detail());
    }
    body.putObject("data").put("attempted", true);
    return SimResponse.ok(body);
  }

  private SimResponse delete(String id) {
    RegisteredWebhook removed;
    synchronized (lock) {
      removed = DIGITS.matcher(id).matches() ? webhooks.remove(id) : null;
    }
    if (removed == null) {
      return Api.webhookIdInvalid(id);
    }
    removed.markDeleted();
    log.info("webhook {} deleted", id);
    ObjectNode body = Json.object();
    body.putObject("data").put("deleted", true);
    return SimResponse.ok(body);
  }
}
