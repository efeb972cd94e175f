package io.servicehooks.spring;

/**
 * A start-up refusal of this module's configuration that says what is wrong and what to do: the
 * {@link WebhookSetupFailureAnalyzer} shows the two parts as Spring Boot's "Description" and
 * "Action". Its texts name properties, beans and placeholders, never a secret.
 */
final class WebhookSetupException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  WebhookSetupException(String description, String action) {
    super(description + " " + action);
    this.description = description;
    this.action = action;
  }

  String description() {
    return description;
  }

  String action() {
    return action;
  }
}
