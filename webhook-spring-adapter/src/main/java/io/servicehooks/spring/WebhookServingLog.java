package io.servicehooks.spring;

import io.servicehooks.core.WebhookConsumer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.env.Environment;
import org.springframework.web.context.WebApplicationContext;

/**
 * Logs one INFO line once the application context is refreshed (the web server is then started):
 * where the webhook is served and in which acknowledgement mode, as the Undertow server does (or,
 * with a null path, that none is: the Kafka reader role), and a WARN naming any {@code
 * servicehooks.*} property that nothing binds. Refresh events of child contexts (a management
 * server on its own port) reach the parent's listeners too: only the context that holds this bean
 * logs.
 */
final class WebhookServingLog implements ApplicationListener<ContextRefreshedEvent> {

  private static final Logger log = LoggerFactory.getLogger(WebhookAutoConfiguration.class);

  private final ApplicationContext context;
  private final String path;
  private final Supplier<WebhookConsumer> consumer;
  private final AtomicBoolean logged = new AtomicBoolean();

  WebhookServingLog(ApplicationContext context, String path, Supplier<WebhookConsumer> consumer) {
    this.context = context;
    this.path = path;
    this.consumer = consumer;
  }

  @Override
  public void onApplicationEvent(ContextRefreshedEvent event) {
    if (event.getApplicationContext() != context || !logged.compareAndSet(false, true)) {
      return;
    }
    Environment environment = context.getEnvironment();
    String port = environment.getProperty("local.server.port");
    if (path == null) {
      log.info(
          "No webhook served ({}=reader): the listeners run from Kafka topic {}",
          KafkaProperties.ROLE,
          environment.getProperty(KafkaProperties.TOPIC));
    } else {
      log.info(
          "Serving webhooks at {}{}{}, acknowledgement {}",
          contextPath(),
          path,
          port == null ? "" : " on port " + port,
          consumer.get().acknowledgement());
    }
    if (WebhookRedisAutoConfiguration.durable(environment)
        && WebhookRedisAutoConfiguration.asked(environment)) {
      log.warn(
          "{} / {} ignored: in durable mode the inbox table is the dedup every instance shares,"
              + " so no Redis store was opened; remove the property",
          WebhookRedisAutoConfiguration.URL,
          WebhookRedisAutoConfiguration.ENABLED);
    }
    List<String> unknown = UnknownProperties.in(environment);
    if (!unknown.isEmpty()) {
      log.warn(UnknownProperties.describe(unknown));
    }
  }

  private String contextPath() {
    if (context instanceof WebApplicationContext web && web.getServletContext() != null) {
      return web.getServletContext().getContextPath();
    }
    return "";
  }
}
