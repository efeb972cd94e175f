package io.servicehooks.spring;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when the adapter is to build a consumer: when at least one non-blank consumer secret is
 * configured, whether as a comma-separated value or as an indexed list (which a plain property
 * condition would miss), or when {@code servicehooks.webhook.kafka.role=reader} asks for one that
 * serves no webhook and runs its listeners from Kafka (no signature is ever checked there).
 */
final class OnConsumerSecretCondition extends SpringBootCondition {

  static final String PROPERTY = "servicehooks.webhook.consumer-secrets";

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    ConditionMessage.Builder message =
        ConditionMessage.forCondition("servicehooks consumer secret");
    List<String> secrets =
        Binder.get(context.getEnvironment())
            .bind(PROPERTY, Bindable.listOf(String.class))
            .orElse(List.of());
    if (secrets.stream().anyMatch(s -> s != null && !s.isBlank())) {
      return ConditionOutcome.match(message.found("property").items(PROPERTY));
    }
    if (KafkaProperties.reader(context.getEnvironment())) {
      return ConditionOutcome.match(
          message.found("property").items(KafkaProperties.ROLE + "=reader"));
    }
    return ConditionOutcome.noMatch(message.didNotFind("non-blank property").items(PROPERTY));
  }
}
