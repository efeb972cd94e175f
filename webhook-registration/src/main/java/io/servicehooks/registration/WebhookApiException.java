package io.servicehooks.registration;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The platform answered a registration call with an error: carries the HTTP status, the {@link
 * Reason}, the platform's own reason name (such as {@code DuplicateUrlFailed}), its message and the
 * raw response body. Failures of the network itself (refused connection, time-out) are plain {@link
 * IOException}s, never this type.
 */
public final class WebhookApiException extends IOException {

  /** Why the platform refused a call, as far as the client can tell. */
  public enum Reason {
    /** The consumer URL did not answer the challenge-response check correctly or in time. */
    CRC_VALIDATION_FAILED,
    /** The platform refused the URL: not https, has a port, too long or malformed. */
    URL_VALIDATION_FAILED,
    /** The application has already registered this URL. */
    DUPLICATE_URL_FAILED,
    /** The application has as many webhooks as its plan allows. */
    WEBHOOK_LIMIT_EXCEEDED,
    /** The webhook id is unknown or belongs to another application. */
    WEBHOOK_ID_INVALID,
    /** A replay job is already running for this webhook. */
    REPLAY_CONFLICT,
    /** The credentials or the bearer token were refused (HTTP 401 or 403, codes 89 and 99). */
    AUTHENTICATION,
    /**
     * The rate limit was exceeded and no retry was possible within the allowed wait (a post or a
     * direct message is never retried); {@link WebhookApiException#rateLimitReset()} says when the
     * limit resets.
     */
    RATE_LIMITED,
    /**
     * A call made for a user was refused because the user's token is invalid or expired (HTTP 401,
     * code 89): it will not heal, the user must sign in again. (With the app-only bearer token, a
     * 401 fetches a new token once; a refusal after that is {@link #AUTHENTICATION}.)
     */
    TOKEN_INVALID,
    /** The user posted the same text recently: the platform refuses a duplicate (HTTP 403). */
    DUPLICATE_CONTENT,
    /**
     * The platform does not permit this: a direct message without the permission to send it (code
     * 93), a reply to a post the user may not reply to, an edit of another's post or after its
     * window (HTTP 403).
     */
    NOT_PERMITTED,
    /**
     * User sign-in: the {@code oauth_callback} is not one of the callback URLs approved in the
     * application's settings (code 415).
     */
    CALLBACK_NOT_APPROVED,
    /**
     * User sign-in: the {@code oauth_verifier} (the callback's value or the PIN) is wrong, was used
     * already, or its request token expired; start again with a new request token.
     */
    INVALID_VERIFIER,
    /**
     * An OAuth 1.0a signature did not verify (code 32): wrong API secret or token secret, or a
     * request changed on the way.
     */
    INVALID_SIGNATURE,
    /**
     * An OAuth 1.0a timestamp is too far from the platform's clock (code 135): set this machine's
     * clock right.
     */
    CLOCK_SKEW,
    /** An OAuth 1.0a nonce was used already (a replayed request). */
    NONCE_REUSED,
    /**
     * The call needs user context (such as a subscription to private events, {@code dm.*}): make it
     * through {@link WebhookClient#forUser}.
     */
    USER_CONTEXT_REQUIRED,
    /**
     * Any other failure; see {@link #reasonName()}, {@link #platformMessage()} and {@link #body()}.
     */
    UNKNOWN;

    static Reason fromPlatformName(String name) {
      if (name == null) {
        return UNKNOWN;
      }
      return switch (name) {
        case "CrcValidationFailed" -> CRC_VALIDATION_FAILED;
        case "UrlValidationFailed" -> URL_VALIDATION_FAILED;
        case "DuplicateUrlFailed" -> DUPLICATE_URL_FAILED;
        case "WebhookLimitExceeded" -> WEBHOOK_LIMIT_EXCEEDED;
        case "WebhookIdInvalid" -> WEBHOOK_ID_INVALID;
        case "ReplayConflictError", "ReplayConflict" -> REPLAY_CONFLICT;
        default -> UNKNOWN;
      };
    }
  }

  private final int status;
  private final Reason reason;
  private final String reasonName;
  private final String platformMessage;
  private final String body;
  private final Instant rateLimitReset;
  private final List<String> parameters;

  WebhookApiException(
      String message,
      int status,
      Reason reason,
      String reasonName,
      String platformMessage,
      String body,
      Instant rateLimitReset) {
    this(message, status, reason, reasonName, platformMessage, body, rateLimitReset, List.of());
  }

  WebhookApiException(
      String message,
      int status,
      Reason reason,
      String reasonName,
      String platformMessage,
      String body,
      Instant rateLimitReset,
      List<String> parameters) {
    super(message);
    this.parameters = parameters == null ? List.of() : List.copyOf(parameters);
    this.status = status;
    this.reason = reason;
    this.reasonName = reasonName;
    this.platformMessage = platformMessage;
    this.body = body == null ? "" : body;
    this.rateLimitReset = rateLimitReset;
  }

  /** The HTTP status of the platform's answer. */
  public int status() {
    return status;
  }

  /** The reason, {@link Reason#UNKNOWN} when the platform named none the client knows. */
  public Reason reason() {
    return reason;
  }

  /**
   * The platform's name for the failure: the text before the first {@code :} of {@code
   * errors[0].message} (such as {@code DuplicateUrlFailed}), else the error's label, else the
   * problem title.
   */
  public Optional<String> reasonName() {
    return Optional.ofNullable(reasonName);
  }

  /** The platform's human-readable message, or an empty string when there was none. */
  public String platformMessage() {
    return platformMessage == null ? "" : platformMessage;
  }

  /** The raw response body as text, possibly empty. */
  public String body() {
    return body;
  }

  /**
   * When a rate limit resets, from {@code x-rate-limit-reset} or {@code Retry-After}; empty when
   * neither was given or readable as a time (not a number, negative, beyond any clock).
   */
  public Optional<Instant> rateLimitReset() {
    return Optional.ofNullable(rateLimitReset);
  }

  /**
   * The request parameters the platform named as invalid (a 400's {@code errors[].parameters} or
   * {@code errors[].parameter}, such as {@code ids} or {@code post.fields}); empty when it named
   * none.
   */
  public List<String> parameters() {
    return parameters;
  }
}
