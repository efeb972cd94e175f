package io.servicehooks.spring;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookListener;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The other side of {@link WebhookAutoConfiguration}: in a servlet web application without a
 * consumer secret, says why the webhook endpoint is off instead of leaving it silently absent.
 *
 * <p>When the application has something the endpoint would serve ({@link OnWebhookEvent} methods,
 * {@link WebhookListener} beans or {@link WebhookConsumerCustomizer} beans) and no {@link
 * WebhookConsumer} of its own, start-up fails with a message naming {@code
 * servicehooks.webhook.consumer-secrets} and any {@code servicehooks.*} property the application
 * set that nothing binds (such as a misspelt {@code consumer-secret}). Otherwise one log line says
 * that the endpoint is off and why: INFO, or WARN when an unknown property suggests a mistake.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(WebhookEndpointOffAutoConfiguration.NoConsumerSecretCondition.class)
final class WebhookEndpointOffAutoConfiguration {

  @Bean
  EndpointOffCheck webhookEndpointOffCheck(
      ConfigurableListableBeanFactory beanFactory, Environment environment) {
    return new EndpointOffCheck(beanFactory, environment);
  }

  /** Matches exactly when {@link OnConsumerSecretCondition} does not. */
  static final class NoConsumerSecretCondition extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      ConditionOutcome secret = new OnConsumerSecretCondition().getMatchOutcome(context, metadata);
      return new ConditionOutcome(!secret.isMatch(), secret.getConditionMessage());
    }
  }

  /** Runs once every singleton exists, before the web server starts. */
  static final class EndpointOffCheck implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(WebhookAutoConfiguration.class);
    private static final int LISTED = 3;

    private final ConfigurableListableBeanFactory beanFactory;
    private final Environment environment;

    EndpointOffCheck(ConfigurableListableBeanFactory beanFactory, Environment environment) {
      this.beanFactory = beanFactory;
      this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
      String property = OnConsumerSecretCondition.PROPERTY;
      String why = property + (isBlank() ? " is blank" : " is not set");
      String unknown = UnknownProperties.describe(UnknownProperties.in(environment));
      List<String> listeners = listeners();
      boolean ownConsumer =
          beanFactory.getBeanNamesForType(WebhookConsumer.class, true, false).length > 0;
      if (!listeners.isEmpty() && !ownConsumer) {
        throw new WebhookSetupException(
            "The webhook endpoint is off because "
                + why
                + ", but the application has listeners for it: "
                + listed(listeners)
                + "."
                + (unknown.isEmpty() ? "" : " " + unknown),
            "Set "
                + property
                + " to the app's consumer secret, for example "
                + property
                + "=${SERVICE_CONSUMER_SECRET} in application.properties with the variable set in"
                + " the environment.");
      }
      String line =
          "Webhook endpoint off: "
              + why
              + (ownConsumer
                  ? "; the application's own WebhookConsumer is not served by the adapter."
                  : " and no @OnWebhookEvent method or WebhookListener bean needs it.")
              + (unknown.isEmpty() ? "" : " " + unknown);
      if (unknown.isEmpty()) {
        log.info(line);
      } else {
        log.warn(line);
      }
    }

    private boolean isBlank() {
      return Binder.get(environment)
          .bind(OnConsumerSecretCondition.PROPERTY, Bindable.listOf(String.class))
          .isBound();
    }

    private List<String> listeners() {
      List<String> found = new ArrayList<>();
      ListenerMethods.find(beanFactory)
          .forEach(method -> found.add("@OnWebhookEvent method " + method));
      for (String name : beanFactory.getBeanNamesForType(WebhookListener.class, true, false)) {
        found.add("WebhookListener bean '" + name + "'");
      }
      for (String name :
          beanFactory.getBeanNamesForType(WebhookConsumerCustomizer.class, true, false)) {
        found.add("WebhookConsumerCustomizer bean '" + name + "'");
      }
      return found;
    }

    private static String listed(List<String> items) {
      String shown = String.join(", ", items.subList(0, Math.min(LISTED, items.size())));
      return items.size() > LISTED ? shown + " and " + (items.size() - LISTED) + " more" : shown;
    }
  }
}
