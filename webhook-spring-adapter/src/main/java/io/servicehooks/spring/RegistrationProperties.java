package io.servicehooks.spring;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code servicehooks.registration.*} settings: when {@code public-url} is set (and {@code
 * webhook-registration} is on the classpath), the application makes sure that URL is registered
 * with the platform once it is ready. The credentials never come from here: they are read from the
 * process environment, {@code SERVICE_BEARER_TOKEN} or {@code SERVICE_API_KEY} and {@code
 * SERVICE_API_SECRET}.
 */
@ConfigurationProperties("servicehooks.registration")
public class RegistrationProperties {

  /**
   * The public URL of this application's webhook endpoint, as the platform calls it. Resolved when
   * the application is ready, so it may name ${local.server.port} for local rehearsal.
   */
  private String publicUrl;

  /** The platform's API address, such as https://api.example.com. */
  private URI baseUrl;

  /**
   * Permit http and ports in the public URL (and an http platform address), for rehearsal against a
   * local simulator; the real platform refuses such URLs.
   */
  private boolean allowInsecureUrl;

  /**
   * How often the webhook's valid flag is read from the platform once registered; a webhook the
   * platform switched off after failed CRC checks is revalidated. At least 1s.
   */
  private Duration checkInterval = Duration.ofMinutes(15);

  /**
   * How long without an answered CRC check (the platform checks hourly) makes the application look
   * at the webhook's valid flag at once. At least 1s.
   */
  private Duration checkSilence = Duration.ofMinutes(75);

  public String getPublicUrl() {
    return publicUrl;
  }

  public void setPublicUrl(String publicUrl) {
    this.publicUrl = publicUrl;
  }

  public URI getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(URI baseUrl) {
    this.baseUrl = baseUrl;
  }

  public boolean isAllowInsecureUrl() {
    return allowInsecureUrl;
  }

  public void setAllowInsecureUrl(boolean allowInsecureUrl) {
    this.allowInsecureUrl = allowInsecureUrl;
  }

  public Duration getCheckInterval() {
    return checkInterval;
  }

  public void setCheckInterval(Duration checkInterval) {
    this.checkInterval = checkInterval;
  }

  public Duration getCheckSilence() {
    return checkSilence;
  }

  public void setCheckSilence(Duration checkSilence) {
    this.checkSilence = checkSilence;
  }

  @Override
  public String toString() {
    return "RegistrationProperties[publicUrl="
        + publicUrl
        + ", baseUrl="
        + baseUrl
        + ", allowInsecureUrl="
        + allowInsecureUrl
        + "]";
  }
}
