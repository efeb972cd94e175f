package io.servicehooks.samples.springbot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A webhook bot on Spring Boot: the servicehooks auto-configuration serves the webhook at {@code
 * /webhooks} and routes events to the {@link BotListeners}. Configured by the environment: {@code
 * SERVICE_CONSUMER_SECRET} (comma-separated, the first current) and {@code PORT} (default 8080).
 * Health is at {@code /actuator/health}, Prometheus metrics at {@code /actuator/prometheus}.
 *
 * <pre>{@code
 * SERVICE_CONSUMER_SECRET=my-consumer-secret PORT=8080 java -jar servicehooks-spring-bot.jar
 * }</pre>
 */
@SpringBootApplication
public class SpringBotApplication {

  /** Starts the bot; refuses to start without a consumer secret, since it could verify nothing. */
  public static void main(String[] args) {
    String secrets = System.getenv("SERVICE_CONSUMER_SECRET");
    if ((secrets == null || secrets.isBlank())
        && System.getProperty("servicehooks.webhook.consumer-secrets") == null) {
      System.err.println(
          "SERVICE_CONSUMER_SECRET is not set: give the app's consumer secret "
              + "(comma-separated for rotation, the current one first).");
      System.exit(2);
    }
    SpringApplication.run(SpringBotApplication.class, args);
  }
}
