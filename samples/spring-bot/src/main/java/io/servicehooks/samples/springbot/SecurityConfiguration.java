package io.servicehooks.samples.springbot;

import static org.springframework.security.config.Customizer.withDefaults;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Spring Security for the bot: the platform reaches the webhook without credentials (deliveries are
 * authenticated by their HMAC signature, CRC checks answer with one), health and Prometheus metrics
 * are open to the monitoring, the durable inbox's operator endpoint is for operators, and
 * everything else needs a login.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  /** The one filter chain: the webhook and the two Actuator endpoints open, the rest secured. */
  @Bean
  public SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
    http
        // The platform sends no CSRF token: a delivery is authenticated by its signature. The
        // inbox endpoint's callers are operators' scripts with HTTP Basic, not browser sessions.
        .csrf(csrf -> csrf.ignoringRequestMatchers("/webhooks", "/actuator/webhookinbox/**"))
        .authorizeHttpRequests(
            requests ->
                requests
                    // GET answers the CRC check, POST receives deliveries.
                    .requestMatchers(HttpMethod.GET, "/webhooks")
                    .permitAll()
                    .requestMatchers(HttpMethod.POST, "/webhooks")
                    .permitAll()
                    // Your choice: open to the monitoring here; secure them if it logs in.
                    .requestMatchers("/actuator/health/**", "/actuator/prometheus")
                    .permitAll()
                    // Durable mode's inbox: reading it is for operators, retry (POST) and
                    // discard (DELETE) change what runs.
                    .requestMatchers(HttpMethod.GET, "/actuator/webhookinbox")
                    .hasRole("OPS")
                    .requestMatchers("/actuator/webhookinbox", "/actuator/webhookinbox/**")
                    .hasRole("OPS_WRITE")
                    .anyRequest()
                    .authenticated())
        .httpBasic(withDefaults());
    return http.build();
  }
}
