package io.servicehooks.spring;

import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.registration.Answering;
import io.servicehooks.registration.UserCredentials;
import io.servicehooks.registration.UserCredentialsSource;
import io.servicehooks.registration.WebhookClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Answering from listeners, when {@code servicehooks.registration.base-url} is set and the
 * environment holds {@code SERVICE_API_KEY} and {@code SERVICE_API_SECRET} ({@link
 * OnAnsweringCondition}): a ready {@link WebhookClient} for lookups and answers (the app's
 * credentials from the environment, as for registration), the {@link UserCredentialsSource} that
 * finds the user an event is for (the default user's {@code servicehooks.webhook.user.token} and
 * {@code token-secret}, else {@code SERVICE_USER_TOKEN}/{@code SERVICE_USER_TOKEN_SECRET} or the
 * CLI's credentials file), and the {@link Answering} that hands an {@link OnWebhookEvent} method
 * taking a {@code Say} its handle, observed in the application's {@code ObservationRegistry} when
 * it has one. Each backs off when the application defines its own.
 *
 * <p>Imported by {@link WebhookAutoConfiguration} after {@link WebhookRegistrationConfiguration},
 * whose client (with a public URL) is then the one used.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Answering.class)
@Conditional(OnAnsweringCondition.class)
@EnableConfigurationProperties(RegistrationProperties.class)
final class WebhookAnsweringConfiguration {

  @Bean
  @ConditionalOnMissingBean
  WebhookClient webhookClient(
      RegistrationProperties properties, ConfigurableEnvironment environment) {
    return WebhookRegistrationConfiguration.client(
        properties, environment, "servicehooks.registration.base-url is set");
  }

  @Bean
  @ConditionalOnMissingBean
  UserCredentialsSource userCredentialsSource(WebhookProperties properties) {
    WebhookProperties.User user = properties.getUser();
    boolean token = user.getToken() != null && !user.getToken().isBlank();
    boolean secret = user.getTokenSecret() != null && !user.getTokenSecret().isBlank();
    if (token != secret) {
      throw new IllegalStateException(
          (token
                  ? "servicehooks.webhook.user.token is set but servicehooks.webhook.user.token-secret is not"
                  : "servicehooks.webhook.user.token-secret is set but servicehooks.webhook.user.token is not")
              + ": the default user's credentials are the two together");
    }
    return token
        ? UserCredentialsSource.single(
            UserCredentials.of(user.getToken().strip(), user.getTokenSecret().strip()))
        : UserCredentialsSource.fromEnvironment();
  }

  @Bean
  @ConditionalOnMissingBean
  Answering answering(
      WebhookClient client,
      UserCredentialsSource credentials,
      RegistrationProperties properties,
      ConfigurableEnvironment environment,
      ObjectProvider<ObservationRegistry> observations) {
    // With SERVICE_BEARER_TOKEN set, the shared client holds that token only (it wins for app-only
    // calls) and could sign nothing for a user: answers get a client of their own, on the app's
    // key and secret (OnAnsweringCondition saw both).
    WebhookClient signing =
        WebhookRegistrationConfiguration.hasBearerToken(environment)
            ? WebhookRegistrationConfiguration.userContextClient(properties, environment)
            : client;
    Answering answering = Answering.with(signing, credentials);
    // Each call an answer makes is then a child of the listener's observation, as the consumer's
    // own observations are made in the application's registry (WebhookObservationConfiguration).
    ObservationRegistry registry = observations.getIfUnique();
    return registry == null ? answering : answering.observationRegistry(registry);
  }
}
