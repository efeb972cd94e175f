package io.servicehooks.spring;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when listeners can answer: {@code servicehooks.registration.base-url} is set (not blank)
 * and the process environment holds the app's {@code SERVICE_API_KEY} and {@code
 * SERVICE_API_SECRET}, which sign every call made for a user. An application that sets the base URL
 * for another reason (catch-up, the stream) without them gets no answering beans, and starts.
 */
final class OnAnsweringCondition extends SpringBootCondition {

  static final String PROPERTY = "servicehooks.registration.base-url";

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    ConditionMessage.Builder message = ConditionMessage.forCondition("servicehooks answering");
    boolean baseUrl =
        Binder.get(context.getEnvironment())
            .bind(PROPERTY, String.class)
            .map(url -> !url.isBlank())
            .orElse(false);
    if (!baseUrl) {
      return ConditionOutcome.noMatch(message.didNotFind("property").items(PROPERTY));
    }
    PropertySource<?> env =
        context.getEnvironment() instanceof ConfigurableEnvironment configurable
            ? configurable
                .getPropertySources()
                .get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)
            : null;
    for (String name :
        new String[] {
          WebhookRegistrationConfiguration.API_KEY, WebhookRegistrationConfiguration.API_SECRET
        }) {
      Object value = env == null ? null : env.getProperty(name);
      if (value == null || value.toString().isBlank()) {
        return ConditionOutcome.noMatch(message.didNotFind("environment variable").items(name));
      }
    }
    return ConditionOutcome.match(
        message.found("property and credentials").items(PROPERTY, "SERVICE_API_KEY"));
  }
}
