package io.servicehooks.samples.springbot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A webhook bot on Spring Boot: the servicehooks auto-configuration serves the webhook at {@code
 * /webhooks} and routes events to the {@link BotListeners}; {@link SecurityConfiguration} opens the
 * webhook, health and metrics and secures the rest. Configured by the environment: {@code
 * SERVICE_CONSUMER_SECRET} (comma-separated, the first current; without it the application refuses
 * to start) and {@code PORT} (default 8080). Health is at {@code /actuator/health}, Prometheus
 * metrics at {@code /actuator/prometheus}.
 *
 * <pre>{@code
 * SERVICE_CONSUMER_SECRET=my-consumer-secret PORT=8080 java -jar servicehooks-spring-bot.jar
 * }</pre>
 */
@SpringBootApplication
public class SpringBotApplication {

  /** Starts the bot. */
  public static void main(String[] args) {
    SpringApplication.run(SpringBotApplication.class, args);
  }
}
