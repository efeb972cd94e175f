package io.servicehooks.spring;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code servicehooks.registration.public-url} is set. Unlike a plain property
 * condition it leaves placeholders alone, since {@code ${local.server.port}} is only known once the
 * server is up.
 */
final class OnPublicUrlCondition extends SpringBootCondition {

  static final String PROPERTY = "servicehooks.registration.public-url";

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    ConditionMessage.Builder message = ConditionMessage.forCondition("servicehooks registration");
    boolean set =
        Binder.get(context.getEnvironment())
            .bind(PROPERTY, String.class)
            .map(url -> !url.isBlank())
            .orElse(false);
    return set
        ? ConditionOutcome.match(message.found("property").items(PROPERTY))
        : ConditionOutcome.noMatch(message.didNotFind("property").items(PROPERTY));
  }
}
