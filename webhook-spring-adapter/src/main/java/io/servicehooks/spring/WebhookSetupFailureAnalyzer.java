package io.servicehooks.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link WebhookSetupException} anywhere in a failed start-up's causes into Spring Boot's
 * "APPLICATION FAILED TO START" report, with its description and action, instead of a stack trace.
 */
final class WebhookSetupFailureAnalyzer extends AbstractFailureAnalyzer<WebhookSetupException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, WebhookSetupException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
