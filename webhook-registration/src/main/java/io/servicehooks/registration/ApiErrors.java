package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import io.servicehooks.core.internal.LogText;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns the platform's error answers into {@link WebhookApiException}. Two body formats occur: the
 * errors list ({@code errors[].message} as {@code "Reason: details"}, sometimes with {@code code}
 * and {@code label}) and the problem format ({@code title}, {@code detail}, {@code type}), served
 * as {@code application/json} or {@code application/problem+json}.
 */
final class ApiErrors {

  static final int CODE_TOKEN_INVALID = 89;
  static final int CODE_CREDENTIALS_REFUSED = 99;
  static final int CODE_COULD_NOT_AUTHENTICATE = 32;
  static final int CODE_TIMESTAMP_OUT_OF_BOUNDS = 135;
  static final int CODE_CALLBACK_NOT_APPROVED = 415;
  static final int CODE_NOT_PERMITTED = 93;
  static final int CODE_DUPLICATE = 187;

  private static final Pattern REASON_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

  private ApiErrors() {}

  /** What the error body says; every part may be null. */
  record Parsed(
      String reasonName,
      String message,
      Integer code,
      String label,
      String title,
      String type,
      String detail,
      List<String> parameters) {}

  static Parsed parse(byte[] body) {
    JsonNode root;
    try {
      root = body == null || body.length == 0 ? null : Responses.JSON.readTree(body);
    } catch (IOException notJson) {
      root = null;
    }
    if (root == null || !root.isObject()) {
      return new Parsed(null, null, null, null, null, null, null, List.of());
    }
    String message = null;
    Integer code = null;
    String label = null;
    JsonNode errors = root.get("errors");
    Set<String> parameters = new LinkedHashSet<>();
    if (errors != null && errors.isArray()) {
      for (JsonNode error : errors) {
        JsonNode named = error.get("parameters");
        if (named != null && named.isObject()) {
          named.fieldNames().forEachRemaining(parameters::add);
        }
        String parameter = Responses.text(error, "parameter");
        if (parameter != null) {
          parameters.add(parameter);
        }
      }
    }
    if (errors != null && errors.isArray() && !errors.isEmpty()) {
      JsonNode first = errors.get(0);
      message = Responses.text(first, "message");
      label = Responses.text(first, "label");
      if (first.hasNonNull("code") && first.get("code").canConvertToInt()) {
        code = first.get("code").asInt();
      } else if (first.hasNonNull("code") && first.get("code").asText().matches("\\d{1,6}")) {
        code = Integer.parseInt(first.get("code").asText());
      }
    }
    String title = Responses.text(root, "title");
    String detail = Responses.text(root, "detail");
    String reasonName = reasonPrefix(message);
    if (reasonName == null) {
      reasonName = reasonPrefix(detail);
    }
    if (reasonName == null) {
      reasonName = Responses.text(root, "reason");
    }
    if (message == null) {
      message = detail != null ? detail : title;
    }
    return new Parsed(
        reasonName,
        message,
        code,
        label,
        title,
        Responses.text(root, "type"),
        detail,
        List.copyOf(parameters));
  }

  /**
   * The text before the first {@code :}, when it is one identifier-like word such as {@code
   * WebhookIdInvalid}.
   */
  static String reasonPrefix(String message) {
    if (message == null) {
      return null;
    }
    int colon = message.indexOf(':');
    if (colon <= 0) {
      return null;
    }
    String prefix = message.substring(0, colon).trim();
    return REASON_NAME.matcher(prefix).matches() ? prefix : null;
  }

  static WebhookApiException from(ApiResponse response, Clock clock) {
    return from(response, clock, false);
  }

  /**
   * @param userContext the call was made for a user (OAuth 1.0a): a 401 with code 89 then means the
   *     user's token will not heal ({@link WebhookApiException.Reason#TOKEN_INVALID})
   */
  static WebhookApiException from(ApiResponse response, Clock clock, boolean userContext) {
    Parsed parsed = parse(response.body());
    if (parsed.message() == null && isOAuthPath(response.path())) {
      parsed = withPlainTextMessage(parsed, response);
    }
    WebhookApiException.Reason reason =
        WebhookApiException.Reason.fromPlatformName(parsed.reasonName());
    if (reason == WebhookApiException.Reason.UNKNOWN) {
      reason = oauthReason(parsed);
    }
    if (reason == WebhookApiException.Reason.UNKNOWN) {
      WebhookApiException.Reason refusal =
          refusalReason(response.status(), parsed, userContext, response.path());
      if (refusal != null) {
        reason = refusal;
      }
    }
    if (reason == WebhookApiException.Reason.UNKNOWN) {
      if (response.status() == 429) {
        reason = WebhookApiException.Reason.RATE_LIMITED;
      } else if (response.status() == 401
          || response.status() == 403
          || Integer.valueOf(CODE_TOKEN_INVALID).equals(parsed.code())
          || Integer.valueOf(CODE_CREDENTIALS_REFUSED).equals(parsed.code())) {
        reason = WebhookApiException.Reason.AUTHENTICATION;
      }
    }
    String name =
        parsed.reasonName() != null
            ? parsed.reasonName()
            : parsed.label() != null ? parsed.label() : parsed.title();
    StringBuilder message =
        new StringBuilder()
            .append(response.method())
            .append(' ')
            .append(response.path())
            .append(" failed: HTTP ")
            .append(response.status());
    // The exception's message ends up in log lines and on terminals: the platform's text in it is
    // escaped and cut (the raw text stays in platformMessage() and body()).
    if (name != null) {
      message.append(' ').append(LogText.of(name));
    }
    if (parsed.code() != null) {
      message.append(" (code ").append(parsed.code()).append(')');
    }
    if (parsed.message() != null && !parsed.message().equals(name)) {
      String text = parsed.message();
      if (name != null && text.startsWith(name + ":")) {
        text = text.substring(name.length() + 1).trim();
      }
      if (!text.isEmpty()) {
        message.append(": ").append(LogText.of(text));
      }
    }
    if (!parsed.parameters().isEmpty()) {
      message
          .append(" (parameter")
          .append(parsed.parameters().size() == 1 ? " " : "s ")
          .append(LogText.of(String.join(", ", parsed.parameters())))
          .append(')');
    }
    if (reason == WebhookApiException.Reason.CLOCK_SKEW) {
      // the one fact that helps: how far off this machine is
      response
          .headers()
          .firstValue("date")
          .ifPresent(
              date ->
                  message
                      .append(" (this machine's clock says ")
                      .append(
                          DateTimeFormatter.RFC_1123_DATE_TIME.format(
                              clock.instant().atZone(ZoneOffset.UTC)))
                      .append(", the platform's ")
                      .append(LogText.of(date))
                      .append(')'));
    }
    return new WebhookApiException(
        message.toString(),
        response.status(),
        reason,
        name,
        parsed.message(),
        response.bodyText(),
        response.status() == 429 || response.status() >= 500
            ? RetryAfter.reportedResetTime(response, clock).orElse(null)
            : null,
        parsed.parameters());
  }

  /**
   * The refusals a bot meets when it posts or sends a direct message, read from the code, else the
   * platform's words in {@code errors[].message} or the problem's {@code detail} and {@code title};
   * null when none applies.
   */
  private static WebhookApiException.Reason refusalReason(
      int status, Parsed parsed, boolean userContext, String path) {
    Integer code = parsed.code();
    if (status == 401 && userContext && Integer.valueOf(CODE_TOKEN_INVALID).equals(code)) {
      return WebhookApiException.Reason.TOKEN_INVALID;
    }
    if (status != 403) {
      return null;
    }
    String words =
        (String.valueOf(parsed.message())
                + ' '
                + String.valueOf(parsed.detail())
                + ' '
                + String.valueOf(parsed.title()))
            .toLowerCase(Locale.ROOT);
    if (Integer.valueOf(CODE_DUPLICATE).equals(code) || words.contains("duplicate")) {
      return WebhookApiException.Reason.DUPLICATE_CONTENT;
    }
    if (Integer.valueOf(CODE_NOT_PERMITTED).equals(code)
        || words.contains("not permitted")
        || words.contains("not allowed")) {
      return WebhookApiException.Reason.NOT_PERMITTED;
    }
    // Posting and messaging for a user: the credentials were taken (a refused token is a 401), so
    // any other 403 refuses the act itself (a reply to a hidden post, an edit of another's post or
    // after its window), unless it is the platform's refusal of an app-only token.
    if (userContext
        && (path.startsWith("/2/posts") || path.startsWith("/2/dm_conversations/"))
        && (parsed.type() == null || !parsed.type().endsWith("/unsupported-authentication"))
        && code == null) {
      return WebhookApiException.Reason.NOT_PERMITTED;
    }
    return null;
  }

  /**
   * The reasons of OAuth 1.0a failures: by the platform's error code where it has one, else by its
   * message, since the verifier and nonce failures come without a code.
   */
  private static WebhookApiException.Reason oauthReason(Parsed parsed) {
    String message = parsed.message() == null ? "" : parsed.message().toLowerCase(Locale.ROOT);
    Integer code = parsed.code();
    if (Integer.valueOf(CODE_CALLBACK_NOT_APPROVED).equals(code)
        || message.contains("callback url not approved")) {
      return WebhookApiException.Reason.CALLBACK_NOT_APPROVED;
    }
    if (Integer.valueOf(CODE_TIMESTAMP_OUT_OF_BOUNDS).equals(code)
        || message.contains("timestamp out of bounds")) {
      return WebhookApiException.Reason.CLOCK_SKEW;
    }
    if (message.contains("oauth_verifier")) {
      return WebhookApiException.Reason.INVALID_VERIFIER;
    }
    if (message.contains("nonce")) {
      return WebhookApiException.Reason.NONCE_REUSED;
    }
    if (Integer.valueOf(CODE_COULD_NOT_AUTHENTICATE).equals(code)) {
      return WebhookApiException.Reason.INVALID_SIGNATURE;
    }
    if (parsed.type() != null && parsed.type().endsWith("/unsupported-authentication")) {
      return WebhookApiException.Reason.USER_CONTEXT_REQUIRED;
    }
    return WebhookApiException.Reason.UNKNOWN;
  }

  private static boolean isOAuthPath(String path) {
    return path.startsWith("/oauth/") || path.startsWith("/1.1/oauth/");
  }

  /**
   * The OAuth 1.0a endpoints may answer an error in plain text ({@code Error processing your OAuth
   * request: Invalid oauth_verifier parameter}): that text is then the message, when short and
   * printable.
   */
  private static Parsed withPlainTextMessage(Parsed parsed, ApiResponse response) {
    String text = response.bodyText().strip();
    if (text.isEmpty() || text.length() > 300 || !text.chars().allMatch(c -> c >= 0x20)) {
      return parsed;
    }
    return new Parsed(
        parsed.reasonName(),
        text,
        parsed.code(),
        parsed.label(),
        parsed.title(),
        parsed.type(),
        parsed.detail(),
        parsed.parameters());
  }

  static WebhookApiException bodyTooLarge(String method, String path, int status, int limit) {
    String what = "the response body is larger than " + limit + " bytes; it was not read further";
    return new WebhookApiException(
        method + " " + path + ": HTTP " + status + " but " + what,
        status,
        WebhookApiException.Reason.UNKNOWN,
        null,
        what,
        "",
        null);
  }

  static WebhookApiException unexpected(ApiResponse response, String what) {
    return new WebhookApiException(
        response.method() + " " + response.path() + ": HTTP " + response.status() + " but " + what,
        response.status(),
        WebhookApiException.Reason.UNKNOWN,
        null,
        what,
        "",
        null);
  }

  /** When the platform says to try again; see {@link RetryAfter#resetTime}. */
  static Optional<Instant> resetTime(ApiResponse response, Clock clock) {
    return RetryAfter.resetTime(response, clock);
  }
}
